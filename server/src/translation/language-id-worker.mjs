// The language identifier's thread (see language-id.ts): loads eld's n-grams here, off the main
// thread, then answers one text at a time through shared memory so the caller can wait for the
// answer synchronously. Plain JavaScript: it runs in a worker thread, outside any TypeScript loader.
import { parentPort, workerData } from "node:worker_threads";

const { eld } = await import("eld/medium");
const control = new Int32Array(workerData.shared, 0, 2);
const data = new Uint8Array(workerData.shared, 8);
const encoder = new TextEncoder();

function answer(text) {
  try {
    const r = eld.detect(String(text));
    return { language: r.language || null, reliable: r.language !== "" && r.isReliable(), scores: r.getScores() };
  } catch (e) {
    return { error: String(e?.message ?? e) };
  }
}

parentPort.on("message", (text) => {
  let bytes = encoder.encode(JSON.stringify(answer(text)));
  if (bytes.length > data.length) bytes = encoder.encode(JSON.stringify({ error: "the answer is too large" }));
  data.set(bytes);
  Atomics.store(control, 1, bytes.length);
  Atomics.store(control, 0, 1);
  Atomics.notify(control, 0);
});
parentPort.postMessage({ ready: true, languages: Object.values(eld.info().Languages) });
