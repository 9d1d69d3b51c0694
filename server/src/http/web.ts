import { existsSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";

export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/** The SvelteKit client (adapter-node build), served by the same process on the same port. */
export async function loadWebHandler(buildDir: string | null): Promise<NodeHandler | null> {
  if (!buildDir) return null;
  const file = path.join(buildDir, "handler.js");
  if (!existsSync(file)) return null;
  const mod = (await import(pathToFileURL(file).href)) as { handler: NodeHandler };
  return mod.handler;
}
