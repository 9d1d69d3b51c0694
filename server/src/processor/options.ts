/** The reference processor's launch options (docs/api.md, "Reference processor"). */
import { parseArgs } from "node:util";

export interface LaunchOptions {
  state: string;
  host: string;
  port: number;
  config: string | null;
  cpu: boolean;
  checkpointDirectory: string | null;
  enginePython: string | null;
  engineRoot: string | null;
  maxSourceBytes: number | null;
  help: boolean;
}

export const HELP = `Usage: pnpm processor [options]

The reference translation processor (protocol v1).

Options:
  --state <dir>                 state directory: jobs, inputs, outputs, checkpoints (default ./processor-state)
  --host <host[:port]>          listen address (default 127.0.0.1:8095)
  --config <file>               engine configuration JSON (external engine; part of the request identity)
  --cpu                         opt into CPU execution (passed to the external engine)
  --checkpoint-directory <dir>  where checkpoints go instead of <state>/checkpoints
  --engine-python <path>        interpreter of the manga-image-translator environment
  --engine-root <dir>           root directory of the manga-image-translator checkout
                                (both select the external engine; neither: the built-in local path)
  --max-source-bytes <n>        largest source upload (default: the service's archive size limit)
  --help                        this text

Environment:
  TRANSLATION_PROCESSOR_TOKEN   bearer token every request must carry; required on a non-loopback --host
`;

export class UsageError extends Error {}

/** Splits host[:port]; IPv6 literals are written in brackets ([::1]:8095). */
export function parseHost(value: string): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(value);
  const host = m?.[1] ?? m?.[2];
  const port = m?.[3] === undefined ? 8095 : Number(m[3]);
  if (!host || !(port >= 0 && port <= 65535))
    throw new UsageError(`--host must be host[:port], got ${JSON.stringify(value)}`);
  return { host, port };
}

export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export function parseLaunchOptions(argv: string[]): LaunchOptions {
  let values;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        state: { type: "string" },
        host: { type: "string" },
        config: { type: "string" },
        cpu: { type: "boolean" },
        "checkpoint-directory": { type: "string" },
        "engine-python": { type: "string" },
        "engine-root": { type: "string" },
        "max-source-bytes": { type: "string" },
        help: { type: "boolean" },
      },
    }).values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { host, port } = parseHost(values.host ?? "127.0.0.1:8095");
  const python = values["engine-python"] ?? null;
  const root = values["engine-root"] ?? null;
  if ((python === null) !== (root === null))
    throw new UsageError("--engine-python and --engine-root go together (the external engine needs both)");
  const max = values["max-source-bytes"];
  if (max !== undefined && !/^[1-9]\d{0,15}$/.test(max))
    throw new UsageError("--max-source-bytes must be a positive whole number");
  return {
    state: values.state ?? "./processor-state",
    host,
    port,
    config: values.config ?? null,
    cpu: values.cpu ?? false,
    checkpointDirectory: values["checkpoint-directory"] ?? null,
    enginePython: python,
    engineRoot: root,
    maxSourceBytes: max === undefined ? null : Number(max),
    help: values.help ?? false,
  };
}
