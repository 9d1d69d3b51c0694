/**
 * Validates the service's OPDS 2 documents against the published OPDS 2.0 JSON schemas (feed and
 * everything it references) and OPDS Progression documents against the progression schema, with
 * ajv. The schemas are not part of the repository: CI passes the folder that holds them.
 *
 *   node --import tsx server/test/opds2-schema-check.ts <folder of *.schema.json files>
 *
 * It starts the real service on a temporary data folder and library (written here: two series,
 * books and chapters), asks for every kind of OPDS 2 document — root, library, search with and
 * without results, a series, recently added, continue reading empty and not, a progression — and
 * prints one line per document, then `OPDS 2 schemas: N passed, N failed`. Exit code 1 when any
 * document is invalid or the schemas cannot be loaded.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { ZipFile } from "yazl";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";

const FEED_ID = "https://drafts.opds.io/schema/feed.schema.json";
const PROGRESSION_ID = "https://drafts.opds.io/schema/progression.schema.json";
const API_KEY = "opds2-schema-check-key";

function schemaFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...schemaFiles(p));
    else if (name.endsWith(".schema.json")) out.push(p);
  }
  return out;
}

async function cbz(pages: number): Promise<Buffer> {
  const zip = new ZipFile();
  for (let i = 1; i <= pages; i++)
    zip.addBuffer(Buffer.alloc(64, i), `${String(i).padStart(3, "0")}.jpg`, { compress: false });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

async function main(): Promise<number> {
  const dir = process.argv[2];
  if (!dir) {
    console.error("usage: opds2-schema-check.ts <folder of OPDS 2 JSON schemas>");
    return 2;
  }
  const ajv = new Ajv({ strict: false, allErrors: true });
  (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
  // The progression schema names a format "uri-references" that no validator defines: accepted as is.
  ajv.addFormat("uri-references", true);
  let files: string[];
  try {
    files = schemaFiles(dir);
  } catch (e) {
    console.error(`OPDS 2 schemas: cannot read ${dir}: ${(e as Error).message}`);
    return 1;
  }
  for (const f of files) ajv.addSchema(JSON.parse(readFileSync(f, "utf8")) as object);
  const feedSchema = ajv.getSchema(FEED_ID);
  const progressionSchema = ajv.getSchema(PROGRESSION_ID);
  if (!feedSchema || !progressionSchema) {
    console.error(`OPDS 2 schemas: ${dir} lacks the feed or progression schema`);
    return 1;
  }

  const tmp = mkdtempSync(path.join(os.tmpdir(), "mls-opds2-"));
  const config = loadConfig({
    DATA_DIR: path.join(tmp, "data"),
    LIBRARY_ROOT: path.join(tmp, "library"),
    PORT: "0",
    HOST: "127.0.0.1",
    API_KEY,
    ADMIN_PASSWORD: "opds2-schema-check",
    DEMO_LIBRARY: "0",
    WEB_BUILD_DIR: "",
    LOG_LEVEL: "silent",
  });
  const app = await createApp(config);
  const port = await app.listen();
  const base = `http://127.0.0.1:${port}`;
  const call = (p: string, init: RequestInit = {}) =>
    fetch(`${base}${p}`, {
      ...init,
      headers: { "x-api-key": API_KEY, "content-type": "application/json", ...init.headers },
    });
  let passed = 0;
  let failed = 0;
  const check = (what: string, validate: ValidateFunction, doc: unknown) => {
    if (validate(doc)) {
      passed += 1;
      console.log(`  valid    ${what}`);
    } else {
      failed += 1;
      console.log(
        `  INVALID  ${what}\n${JSON.stringify(validate.errors, null, 2)}\n${JSON.stringify(doc, null, 2).slice(0, 3000)}`,
      );
    }
  };
  try {
    for (const [title, names] of [
      [
        "Schema Check Saga",
        ["Schema Check Saga v01.cbz", "Schema Check Saga c010.cbz", "Schema Check Saga c011 (part 2).cbz"],
      ],
      ["Another Series", ["Another Series c001.cbz"]],
    ] as const) {
      const res = await call("/api/manga", { method: "POST", body: JSON.stringify({ title }) });
      const s = (await res.json()) as { folder: string };
      await mkdir(path.join(config.libraryRoot, s.folder), { recursive: true });
      for (const n of names) await writeFile(path.join(config.libraryRoot, s.folder, n), await cbz(5));
    }
    await call("/api/library/scan", { method: "POST" });
    const series = (await (await call("/api/manga")).json()) as { id: number; title: string }[];
    const saga = series.find((s) => s.title === "Schema Check Saga")!;
    const feed = async (p: string) => {
      const res = await call(p);
      if (!(res.headers.get("content-type") ?? "").startsWith("application/opds+json"))
        throw new Error(`${p}: ${res.status} ${res.headers.get("content-type")}`);
      return (await res.json()) as { publications?: { links: { rel: string; href: string }[] }[] };
    };
    check("root /opds/v2/catalog", feedSchema, await feed("/opds/v2/catalog"));
    check("library /opds/v2/series", feedSchema, await feed("/opds/v2/series"));
    check("search with results", feedSchema, await feed("/opds/v2/series?query=saga"));
    check("search without results", feedSchema, await feed("/opds/v2/series?query=nothing-matches"));
    check("continue reading (empty)", feedSchema, await feed("/opds/v2/continue"));
    const one = await feed(`/opds/v2/series/${saga.id}`);
    check("a series' publications", feedSchema, one);
    check("recently added", feedSchema, await feed("/opds/v2/recent"));
    const progression = one.publications![0]!.links.find((l) => l.rel === "http://opds-spec.org/progression")!.href;
    const put = await call(progression, {
      method: "PUT",
      body: JSON.stringify({
        modified: new Date().toISOString(),
        device: { id: "urn:uuid:6f1c1d8e-0000-4000-8000-000000000001", name: "Check" },
        progression: 0.4,
      }),
    });
    check("progression (PUT answer)", progressionSchema, await put.json());
    check("progression (GET)", progressionSchema, await (await call(progression)).json());
    check("continue reading", feedSchema, await feed("/opds/v2/continue"));
  } catch (e) {
    failed += 1;
    console.log(`  FAILED   ${(e as Error).message}`);
  } finally {
    await app.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`OPDS 2 schemas: ${passed} passed, ${failed} failed`);
  return failed > 0 || passed === 0 ? 1 : 0;
}

process.exitCode = await main();
