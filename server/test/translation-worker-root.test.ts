/**
 * The translation worker and a library folder that went away (an unmounted disk) while a job runs
 * at the processor: the job waits, neither failing nor making the folder again, and is imported
 * into the folder once it is back.
 */
import { existsSync } from "node:fs";
import { rename } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { queueJob, stateIs, translatedSeries, workerSuite } from "./translation-worker-harness.ts";
import type { FakeProcessor } from "./fakes/processor-server.ts";
import type { TestApp } from "./utils.ts";

let app: TestApp;
let fake: FakeProcessor;
// Each page takes 300 ms at the processor: the job is still running when the folder goes.
workerSuite(300, (s) => {
  ({ app, fake } = s);
});

describe("translation worker without its library folder", () => {
  it("waits for the folder instead of failing or making it again, then imports into it", async () => {
    const seriesId = await translatedSeries(app, "Gone Folder");
    const job = await queueJob(app, seriesId, "2", { pages: 4 });
    await stateIs(app, job.row.id, "running");
    const root = app.config.libraryRoot;
    const aside = `${root}-unmounted`;
    await rename(root, aside);
    // The processor finishes meanwhile; the worker does not fetch its result into a new folder.
    await new Promise((r) => setTimeout(r, 3000));
    expect(fake.requests.some((r) => r.url === `/jobs/${job.id}/result`)).toBe(false);
    const waiting = await app.ctx.db.translationJob.findUniqueOrThrow({ where: { id: job.row.id } });
    expect(["running", "completed"]).toContain(waiting.state);
    expect(waiting.errorCode).toBeNull();
    expect(existsSync(root)).toBe(false);

    await rename(aside, root);
    const done = await stateIs(app, job.row.id, "imported", "failed");
    expect(done.state).toBe("imported");
    const file = await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: done.fileId! } });
    expect(existsSync(`${root}/${file.path}`)).toBe(true);
  });
});
