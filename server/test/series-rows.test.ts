/** The raw series and proof reads equal Prisma's on SQLite (test/series-rows-check.ts). */
import { afterAll, beforeAll, describe, it } from "vitest";
import { expectRawReadsAsPrisma } from "./series-rows-check.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.dispose();
});

describe("raw series rows on SQLite", () => {
  it("reads series rows and book proofs exactly as Prisma's model API does", async () => {
    await expectRawReadsAsPrisma(app.ctx.db);
  });
});
