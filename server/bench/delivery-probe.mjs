/**
 * Loaded into an instance by `pnpm bench instances` with BENCH_VERBOSE=1 (node --import): for
 * every library event, when the instance's Redis connection handed it over and when the
 * instance's first and last WebSocket send of it began, in ms after the event's `at`. Written as
 * JSON to DELIVERY_PROBE_OUT when the instance is stopped (SIGTERM). With the clients' arrivals this
 * splits each delivery's delay into the Redis hop, the fan-out inside the instance and the way to
 * the client. It wraps two methods and reads a timestamp per send: the figures of a run with the
 * probe are not the benchmark's figures.
 */
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const out = process.env.DELIVERY_PROBE_OUT;
const entry = process.env.DELIVERY_PROBE_ENTRY;
if (out && entry) {
  // The instance's own copies of ws and ioredis (the service bundle keeps its dependencies external).
  const require = createRequire(entry);
  const WebSocket = require("ws");
  const { Redis } = require("ioredis");
  /** at → { redis, first, last, sends } */
  const events = new Map();
  const at = (text) => /"at":"([^"]+)"/.exec(text)?.[1];
  const slot = (key) => {
    let s = events.get(key);
    if (!s) events.set(key, (s = { redis: null, first: null, last: null, sends: 0 }));
    return s;
  };
  const emit = Redis.prototype.emit;
  Redis.prototype.emit = function (name, ...args) {
    if (name === "message") {
      const key = at(String(args[1]));
      if (key) slot(key).redis = Date.now() - Date.parse(key);
    }
    return emit.call(this, name, ...args);
  };
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data, ...rest) {
    const key = typeof data === "string" ? at(data) : undefined;
    if (key) {
      const delay = Date.now() - Date.parse(key);
      const s = slot(key);
      s.first = s.first === null ? delay : Math.min(s.first, delay);
      s.last = s.last === null ? delay : Math.max(s.last, delay);
      s.sends += 1;
    }
    return send.call(this, data, ...rest);
  };
  process.prependListener("SIGTERM", () => writeFileSync(out, JSON.stringify([...events])));
}
