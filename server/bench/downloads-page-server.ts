/**
 * The page server of `pnpm bench downloads`, in a process of its own as a provider's server is
 * (Suwayomi runs apart from the service): it serves the page files the parent wrote, and prints
 * its URL. Both sides of the benchmark, fetch + write and the pipeline, fetch from it, so neither
 * pays for serving in its own process, and the pipeline's peak RSS holds only the service.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { pageServer } from "./downloads-shared.ts";

const [pagesDir] = process.argv.slice(2);
if (!pagesDir) throw new Error("usage: downloads-page-server.ts <pages dir>");
const pages = await Promise.all((await readdir(pagesDir)).sort().map((f) => readFile(path.join(pagesDir, f))));
const server = await pageServer(pages);
console.log(server.url);
// Serves until the parent ends it (or goes away).
process.stdin.resume();
process.stdin.on("end", () => void server.close().then(() => process.exit(0)));
