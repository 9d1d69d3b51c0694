/**
 * OPDS 1.2 and OPDS 2 from an empty service, as reader apps meet them: feeds parsed by an
 * independent OPDS client library (opds-feed-parser, NYPL's parser) and checked by xmllint against
 * the RELAX NG grammar in ./opds/opds-catalog.rng; every acquisition download byte-identical to the
 * file; PSE pages that decode as images and move the reader's place; the OpenSearch description;
 * OPDS 2 feeds with the structure apps rely on (the published JSON schemas are checked by .ci/run)
 * and the OPDS Progression service.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import * as opdsFeedParser from "opds-feed-parser";
import { AcquisitionFeed, NavigationFeed, type OPDSFeed } from "opds-feed-parser";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { expectJson, expectProblem } from "./fixtures.ts";
import { API_KEY_BASIC, asReader, basic, readerSeries, unitFileIds } from "./readers-fixtures.ts";
import { shareTestApp, TEST_API_KEY, type TestApp } from "./utils.ts";

const run = promisify(execFile);
const GRAMMAR = path.join(import.meta.dirname, "opds", "opds-catalog.rng");

let app: TestApp;
shareTestApp((a) => (app = a));

/** xmllint (Debian libxml2-utils) on the document: well-formed and valid against the grammar. */
async function xmllint(xml: string, grammar: string | null = GRAMMAR): Promise<void> {
  const args = ["--noout", "--nonet", ...(grammar ? ["--relaxng", grammar] : []), "-"];
  const child = run("xmllint", args, { encoding: "utf8" });
  child.child.stdin!.end(xml);
  await child.catch((e: NodeJS.ErrnoException & { stderr?: string }) => {
    if (e.code === "ENOENT") throw new Error("xmllint not found: apt-get install libxml2-utils");
    throw new Error(`xmllint refused the document:\n${e.stderr}\n${xml.slice(0, 2000)}`);
  });
}

// A CommonJS package: its default export is the parser class (module.exports.default).
const OPDSParser = (opdsFeedParser as unknown as { default: new () => { parse(xml: string): Promise<OPDSFeed> } })
  .default;

async function parse(xml: string): Promise<OPDSFeed> {
  return new OPDSParser().parse(xml);
}

async function atom(pathname: string): Promise<{ xml: string; feed: OPDSFeed }> {
  const res = await asReader(app, pathname);
  expect(res.status, pathname).toBe(200);
  const xml = await res.text();
  await xmllint(xml);
  const feed = await parse(xml);
  // Served with the media type its links announce: the OPDS profile and the feed's kind.
  const kind = feed instanceof NavigationFeed ? "navigation" : "acquisition";
  expect(res.headers.get("content-type"), pathname).toMatch(
    new RegExp(`^application/atom\\+xml;\\s*profile=opds-catalog;\\s*kind=${kind}(;|$)`),
  );
  return { xml, feed };
}

let saga: { id: number; dir: string };
let files: { name: string; id: number; pages: number }[];

beforeAll(async () => {
  saga = await readerSeries(app, "Opds Saga", [
    { name: "Opds Saga v01.cbz", pages: 6 },
    { name: "Opds Saga c010.cbz", pages: 4 },
    { name: "Opds Saga c011.cbz", pages: 3 },
  ]);
  await readerSeries(app, "Other Title", [{ name: "Other Title c001.cbz", pages: 2 }]);
  // The series page's reading order: a running series without a map lists its chapters, then its books.
  files = [
    { name: "Opds Saga c010.cbz", id: (await unitFileIds(app, saga.id, "chapter", "10"))[0]!, pages: 4 },
    { name: "Opds Saga c011.cbz", id: (await unitFileIds(app, saga.id, "chapter", "11"))[0]!, pages: 3 },
    { name: "Opds Saga v01.cbz", id: (await unitFileIds(app, saga.id, "book", "1"))[0]!, pages: 6 },
  ];
});

describe("authentication of the reader paths", () => {
  it("answers 401 with a Basic challenge without credentials, to a wrong password and to the web session cookie", async () => {
    const attempts: RequestInit[] = [
      {},
      { headers: { authorization: basic("admin", "wrong") } },
      { headers: { cookie: "mls_session=x" } },
    ];
    for (const init of attempts) {
      const res = await fetch(`${app.baseUrl}/opds/v1.2/catalog`, init);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Basic realm=/);
      expect((await res.json()).code).toBe("unauthenticated");
    }
    // A real session cookie is not a reader credential either (no CSRF surface on these paths).
    const login = await fetch(`${app.baseUrl}/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password: "correct horse battery staple" }),
    });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    expect((await fetch(`${app.baseUrl}/opds/v1.2/catalog`, { headers: { cookie } })).status).toBe(401);
  });

  it("takes admin with the web password, the API key as Basic password, or X-Api-Key", async () => {
    expect((await asReader(app, "/opds/v1.2/catalog")).status).toBe(200);
    expect((await asReader(app, "/opds/v1.2/catalog", { headers: { authorization: API_KEY_BASIC } })).status).toBe(200);
    expect((await fetch(`${app.baseUrl}/opds/v1.2/catalog`, { headers: { "x-api-key": TEST_API_KEY } })).status).toBe(
      200,
    );
    expect((await fetch(`${app.baseUrl}/opds/v2/catalog`, { headers: { "x-api-key": "nope" } })).status).toBe(401);
  });
});

describe("OPDS 1.2", () => {
  it("the addresses users type (the prefix, with or without a slash) lead to the catalogue", async () => {
    const redirects: [string, string][] = [
      ["/opds", "/opds/v1.2/catalog"],
      ["/opds/", "/opds/v1.2/catalog"],
      ["/opds/v1.2", "/opds/v1.2/catalog"],
      ["/opds/v1.2/", "/opds/v1.2/catalog"],
      ["/opds/v2", "/opds/v2/catalog"],
      ["/opds/v2/", "/opds/v2/catalog"],
    ];
    for (const [url, to] of redirects) {
      const res = await asReader(app, url, { redirect: "manual" });
      expect(res.status, url).toBe(302);
      expect(new URL(res.headers.get("location")!, app.baseUrl).pathname, url).toBe(to);
    }
  });

  it("the root is a navigation feed with library, recently added and continue reading, and a search link", async () => {
    const { feed } = await atom("/opds/v1.2/catalog");
    expect(feed).toBeInstanceOf(NavigationFeed);
    expect(feed.entries.map((e) => e.title)).toEqual(["Library", "Recently added", "Continue reading"]);
    const rels = feed.links.map((l) => l.rel);
    expect(rels).toEqual(expect.arrayContaining(["self", "start", "search"]));
    const search = feed.links.find((l) => l.rel === "search")!;
    expect(search.type).toBe("application/opensearchdescription+xml");
  });

  it("the OpenSearch description's template finds series by title", async () => {
    const res = await asReader(app, "/opds/v1.2/search.xml");
    expect(res.headers.get("content-type")).toMatch(/^application\/opensearchdescription\+xml/);
    const xml = await res.text();
    await xmllint(xml, null);
    const template = /template="([^"]+)"/.exec(xml)![1]!.replace(/&amp;/g, "&");
    expect(template).toContain("{searchTerms}");
    const { feed } = await atom(template.replace("{searchTerms}", "saga"));
    expect(feed.entries.map((e) => e.title)).toEqual(["Opds Saga"]);
  });

  it("the library lists every series as a subsection with its cover thumbnail", async () => {
    const { feed } = await atom("/opds/v1.2/series");
    const entry = feed.entries.find((e) => e.title === "Opds Saga")!;
    const sub = entry.links.find((l) => l.rel === "subsection")!;
    expect(sub.href).toBe(`/opds/v1.2/series/${saga.id}`);
    expect(sub.type).toContain("kind=acquisition");
    const thumb = entry.links.find((l) => l.rel === "http://opds-spec.org/image/thumbnail")!;
    const img = await asReader(app, thumb.href);
    expect(img.status).toBe(200);
    expect((await sharp(Buffer.from(await img.arrayBuffer())).metadata()).format).toBe("webp");
  });

  it("a series is an acquisition feed of its files in reading order with acquisition, cover, thumbnail and PSE links", async () => {
    const { xml, feed } = await atom(`/opds/v1.2/series/${saga.id}`);
    expect(feed).toBeInstanceOf(AcquisitionFeed);
    expect(feed.entries.map((e) => e.title)).toEqual(["Chapter 10", "Chapter 11", "Volume 1"]);
    for (const [i, entry] of feed.entries.entries()) {
      const f = files[i]!;
      const acq = entry.links.find((l) => l.rel === "http://opds-spec.org/acquisition")!;
      expect(acq.type).toBe("application/vnd.comicbook+zip");
      const download = await asReader(app, acq.href);
      expect(download.status).toBe(200);
      expect(download.headers.get("content-disposition")).toContain(encodeURIComponent(f.name));
      // Byte for byte the file in the library.
      expect(Buffer.from(await download.arrayBuffer()).equals(await readFile(path.join(saga.dir, f.name)))).toBe(true);
      expect(entry.links.some((l) => l.rel === "http://opds-spec.org/image")).toBe(true);
      expect(entry.links.some((l) => l.rel === "http://opds-spec.org/image/thumbnail")).toBe(true);
      expect(entry.links.find((l) => l.rel === "http://vaemendis.net/opds-pse/stream")?.href).toBe(
        `/opds/v1.2/files/${f.id}/pages/{pageNumber}`,
      );
      // The library parser keeps no foreign attributes: pse:count is read from the document itself.
      expect(xml).toMatch(
        new RegExp(`href="/opds/v1.2/files/${f.id}/pages/\\{pageNumber\\}"[^>]*pse:count="${f.pages}"`),
      );
    }
    expect(xml).toContain('xmlns:pse="http://vaemendis.net/opds-pse/ns"');
  });

  it("PSE pages are 0-based images from the archive, and reading them moves the place", async () => {
    const f = files[0]!;
    for (let n = 0; n < f.pages; n++) {
      const res = await asReader(app, `/opds/v1.2/files/${f.id}/pages/${n}`);
      expect(res.status).toBe(200);
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      expect(meta.format).toBe("jpeg");
      expect(meta.width).toBe(48);
      if (n === 1) {
        const p = await expectJson<{ page: number; completed: boolean; device: string }>(
          await app.api(`/api/files/${f.id}/progress`),
          200,
        );
        expect(p).toMatchObject({ page: 2, completed: false, device: "opds" });
        const { xml } = await atom(`/opds/v1.2/series/${saga.id}`);
        // pse:lastRead counts from 1 (OPDS-PSE 1.1): page 2 is where a resuming client opens, as {pageNumber} 1.
        expect(xml).toMatch(
          new RegExp(
            `href="/opds/v1.2/files/${f.id}/pages/\\{pageNumber\\}"[^>]*pse:lastRead="2" pse:lastReadUpdate="[^"]+Z"`,
          ),
        );
      }
    }
    expect(await expectJson<{ completed: boolean }>(await app.api(`/api/files/${f.id}/progress`), 200)).toMatchObject({
      completed: true,
    });
    await expectProblem(await asReader(app, `/opds/v1.2/files/${f.id}/pages/${f.pages}`), 404, "page_not_found");
    const cover = await asReader(app, `/opds/v1.2/files/${files[2]!.id}/cover`);
    expect((await sharp(Buffer.from(await cover.arrayBuffer())).metadata()).format).toBe("jpeg");
  });

  it("recently added and continue reading are acquisition feeds", async () => {
    const recent = await atom("/opds/v1.2/recent");
    expect(recent.feed).toBeInstanceOf(AcquisitionFeed);
    expect(recent.feed.entries.length).toBeGreaterThanOrEqual(4);
    await expectJson(await app.api(`/api/files/${files[1]!.id}/progress`, { method: "PUT", json: { page: 2 } }), 200);
    const cont = await atom("/opds/v1.2/continue");
    expect(cont.feed.entries[0]!.title).toBe("Opds Saga – Chapter 11");
  });

  it("an unknown series or file is 404; library content cannot be changed here", async () => {
    await expectProblem(await asReader(app, "/opds/v1.2/series/999999"), 404, "series_not_found");
    await expectProblem(await asReader(app, "/opds/v1.2/files/999999/file/x.cbz"), 404, "file_not_found");
    await expectProblem(await asReader(app, `/opds/v1.2/series/${saga.id}`, { method: "DELETE" }), 404, "not_found");
  });
});

interface Opds2Link {
  href: string;
  rel?: string;
  type?: string;
  title?: string;
  templated?: boolean;
}
interface Opds2Feed {
  metadata: { title: string; numberOfItems?: number };
  links: Opds2Link[];
  navigation?: Opds2Link[];
  publications?: {
    metadata: { title: string; identifier: string; numberOfPages: number };
    links: Opds2Link[];
    images: Opds2Link[];
  }[];
}

async function opds2(pathname: string): Promise<Opds2Feed> {
  const res = await asReader(app, pathname);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/opds\+json/);
  const feed = (await res.json()) as Opds2Feed;
  // What every OPDS 2 app relies on: a title, a self link, and navigation or publications.
  expect(typeof feed.metadata.title).toBe("string");
  expect(feed.links.some((l) => l.rel === "self")).toBe(true);
  expect(Boolean(feed.navigation?.length) || Boolean(feed.publications?.length)).toBe(true);
  for (const n of feed.navigation ?? []) expect(typeof n.title).toBe("string");
  for (const p of feed.publications ?? []) {
    expect(p.links.some((l) => l.rel === "http://opds-spec.org/acquisition")).toBe(true);
    expect(
      p.images.some((i) => ["image/jpeg", "image/png", "image/gif", "image/avif", "image/webp"].includes(i.type!)),
    ).toBe(true);
  }
  return feed;
}

describe("OPDS 2", () => {
  it("the root navigates to the library, recently added and continue reading, with a templated search", async () => {
    const root = await opds2("/opds/v2/catalog");
    expect(root.navigation!.map((n) => n.title)).toEqual(["Library", "Recently added", "Continue reading"]);
    const search = root.links.find((l) => l.rel === "search")!;
    expect(search.templated).toBe(true);
    const found = await opds2(search.href.replace("{?query}", "?query=saga"));
    expect(found.navigation!.map((n) => n.title)).toEqual(["Opds Saga"]);
  });

  it("a series lists publications in reading order, each with acquisition and progression links", async () => {
    const feed = await opds2(`/opds/v2/series/${saga.id}`);
    expect(feed.publications!.map((p) => p.metadata.title)).toEqual(["Chapter 10", "Chapter 11", "Volume 1"]);
    const first = feed.publications![2]!;
    expect(first.metadata.numberOfPages).toBe(6);
    const acq = first.links.find((l) => l.rel === "http://opds-spec.org/acquisition")!;
    const bytes = Buffer.from(await (await asReader(app, acq.href)).arrayBuffer());
    expect(bytes.equals(await readFile(path.join(saga.dir, files[2]!.name)))).toBe(true);
    const prog = first.links.find((l) => l.rel === "http://opds-spec.org/progression")!;
    expect(prog).toEqual({
      rel: "http://opds-spec.org/progression",
      href: `/opds/v2/files/${files[2]!.id}/progression`,
      type: "application/opds-progression+json",
    });
    for (const p of (await opds2("/opds/v2/recent")).publications!)
      expect(p.metadata.identifier).toMatch(/^urn:manga-library:file:\d+$/);
  });

  it("progression: empty until read, a PUT sets the page, an older document is a conflict, 1 completes", async () => {
    const book = files[2]!;
    const url = `/opds/v2/files/${book.id}/progression`;
    const empty = await asReader(app, url);
    expect(empty.status).toBe(200);
    expect(await empty.text()).toBe("");

    const device = { id: "urn:uuid:0b7a7c5e-1111-4a4a-9e9e-123456789abc", name: "Test reader" };
    const now = new Date(Date.now() - 1000).toISOString();
    const put = await asReader(app, url, { method: "PUT", json: { modified: now, device, progression: 0.5 } });
    expect(put.status).toBe(200);
    expect(put.headers.get("content-type")).toMatch(/^application\/opds-progression\+json/);
    const doc = (await put.json()) as { progression: number; modified: string; device: { id: string; name: string } };
    // 0.5 of 6 pages: page 4 is the page to open next, which reads back as 3/6.
    expect(doc.progression).toBe(0.5);
    expect(await expectJson<{ page: number }>(await app.api(`/api/files/${book.id}/progress`), 200)).toMatchObject({
      page: 4,
    });
    expect(doc.device).toEqual(device);
    const got = (await (await asReader(app, url)).json()) as typeof doc;
    expect(got.progression).toBe(0.5);
    // The device is the one the app named, as the Progression draft gives it back to other readers.
    expect(got.device).toEqual(device);

    const stale = await asReader(app, url, {
      method: "PUT",
      json: { modified: "2001-01-01T00:00:00Z", device, progression: 0.9 },
    });
    expect(stale.status).toBe(409);
    expect(await expectJson<{ page: number }>(await app.api(`/api/files/${book.id}/progress`), 200)).toMatchObject({
      page: 4,
    });

    await expectProblem(
      await asReader(app, url, { method: "PUT", json: { device, progression: 2 } }),
      400,
      "invalid_field",
    );
    const done = await asReader(app, url, { method: "PUT", json: { device, progression: 1 } });
    expect(((await done.json()) as { progression: number }).progression).toBe(1);
    expect(
      await expectJson<{ completed: boolean; page: number }>(await app.api(`/api/files/${book.id}/progress`), 200),
    ).toMatchObject({
      completed: true,
      page: 6,
    });
  });
});

describe("what the reader paths show", () => {
  it("a retired file leaves every feed and answers 404 everywhere, as in the REST API", async () => {
    const s = await readerSeries(app, "Leaving Soon", [
      { name: "Leaving Soon c001.cbz", pages: 2 },
      { name: "Leaving Soon c002.cbz", pages: 2 },
    ]);
    const [gone] = await unitFileIds(app, s.id, "chapter", "1");
    const preview = await expectJson<{ confirmation: string }>(
      await app.api(`/api/manga/${s.id}/audit/retire/preview`, { method: "POST", json: { file_ids: [gone] } }),
      200,
    );
    await expectJson(
      await app.api(`/api/manga/${s.id}/audit/retire`, {
        method: "POST",
        json: { confirmation: preview.confirmation },
      }),
      200,
    );
    const { xml } = await atom(`/opds/v1.2/series/${s.id}`);
    expect(xml).not.toContain(`/opds/v1.2/files/${gone}/`);
    expect(xml).toContain("Chapter 2");
    expect(JSON.stringify(await opds2(`/opds/v2/series/${s.id}`))).not.toContain(`/files/${gone}/`);
    const books = (await (await asReader(app, `/komga/api/v1/series/${s.id}/books?unpaged=true`)).json()) as {
      content: { id: string }[];
    };
    expect(books.content.map((b) => b.id)).not.toContain(String(gone));
    for (const url of [
      `/opds/v1.2/files/${gone}/file/x.cbz`,
      `/opds/v1.2/files/${gone}/pages/0`,
      `/opds/v2/files/${gone}/progression`,
      `/komga/api/v1/books/${gone}`,
      `/komga/api/v1/books/${gone}/pages/1`,
    ])
      await expectProblem(await asReader(app, url), 404, "file_not_found");
    await expectProblem(await app.api(`/api/files/${gone}/pages`), 404, "file_not_found");
  });

  it("downloads answer one byte range with 206 on every reader path, so a broken download resumes", async () => {
    const f = files[2]!;
    const whole = await readFile(path.join(saga.dir, f.name));
    for (const url of [
      `/opds/v1.2/files/${f.id}/file/${encodeURIComponent(f.name)}`,
      `/opds/v2/files/${f.id}/file/${encodeURIComponent(f.name)}`,
      `/komga/api/v1/books/${f.id}/file`,
    ]) {
      const full = await asReader(app, url);
      expect(full.headers.get("accept-ranges"), url).toBe("bytes");
      await full.arrayBuffer();
      const part = await asReader(app, url, { headers: { range: "bytes=100-199" } });
      expect(part.status, url).toBe(206);
      expect(part.headers.get("content-range")).toBe(`bytes 100-199/${whole.length}`);
      expect(part.headers.get("content-length")).toBe("100");
      expect(Buffer.from(await part.arrayBuffer()).equals(whole.subarray(100, 200))).toBe(true);
      // The rest from an offset, and the last bytes.
      const rest = await asReader(app, url, { headers: { range: "bytes=1000-" } });
      expect(rest.status).toBe(206);
      expect(Buffer.from(await rest.arrayBuffer()).equals(whole.subarray(1000))).toBe(true);
      const tail = await asReader(app, url, { headers: { range: "bytes=-10" } });
      expect(Buffer.from(await tail.arrayBuffer()).equals(whole.subarray(whole.length - 10))).toBe(true);
      // A resumed download of a file that changed since starts over: If-Range no longer matches.
      const changed = await asReader(app, url, {
        headers: { range: "bytes=100-199", "if-range": "Mon, 01 Jan 2001 00:00:00 GMT" },
      });
      expect(changed.status).toBe(200);
      expect(Buffer.from(await changed.arrayBuffer()).equals(whole)).toBe(true);
      const same = await asReader(app, url, {
        headers: { range: "bytes=100-199", "if-range": full.headers.get("last-modified")! },
      });
      expect(same.status).toBe(206);
      await same.arrayBuffer();
      const past = await asReader(app, url, { headers: { range: `bytes=${whole.length}-` } });
      expect(past.headers.get("content-range")).toBe(`bytes */${whole.length}`);
      await expectProblem(past, 416, "range_not_satisfiable");
    }
  });

  it("a series feed costs the same number of statements for 2 files as for 12", async () => {
    const small = await readerSeries(app, "Count Small", [
      { name: "Count Small c001.cbz", pages: 1 },
      { name: "Count Small c002.cbz", pages: 1 },
    ]);
    const big = await readerSeries(
      app,
      "Count Big",
      Array.from({ length: 12 }, (_, i) => ({ name: `Count Big c${String(i + 1).padStart(3, "0")}.cbz`, pages: 1 })),
    );
    // The counter also sees the service's background work (a scheduler's tick): that only ever adds
    // statements, so the fewest of three requests is the request's own count.
    const count = async (id: number, url: string) => {
      await asReader(app, url.replace("{id}", String(id)));
      const counts: number[] = [];
      for (let i = 0; i < 3; i++) {
        app.ctx.queries.reset();
        expect((await asReader(app, url.replace("{id}", String(id)))).status).toBe(200);
        counts.push(app.ctx.queries.count);
      }
      return Math.min(...counts);
    };
    for (const url of [
      "/opds/v1.2/series/{id}",
      "/opds/v2/series/{id}",
      "/komga/api/v1/series/{id}/books?unpaged=true",
    ])
      expect(await count(big.id, url), url).toBe(await count(small.id, url));
  });
});
