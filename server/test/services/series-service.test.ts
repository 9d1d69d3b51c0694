/**
 * The series use cases with strictly mocked repositories: every repository method is a mock that
 * fails the test when called without being set up, and each test states exactly which repository
 * calls happen. No database: ctx.db is an empty frozen object.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { seriesService } from "../../src/services/series/series-service.ts";
import { seriesCreateBody, seriesPatchBody } from "../../src/http/bodies/series.ts";
import {
  callLog,
  expectNoUnexpectedCalls,
  seriesRow,
  strictContext,
  strictRepos,
  type StrictRepos,
} from "./strict-mocks.ts";

let unexpected: string[];
let repos: StrictRepos;
let libraryRoot: string;
let service: ReturnType<typeof seriesService>;

/**
 * The service as REST drives it: the JSON body parsed into the typed input first (a malformed
 * shape is refused there, before the service runs), then the service's own rules.
 */
const rest = {
  create: (body: unknown) => Promise.resolve().then(() => service.create(seriesCreateBody(body))),
  update: (id: number, body: unknown) => Promise.resolve().then(() => service.update(id, seriesPatchBody(body))),
};

beforeEach(() => {
  unexpected = [];
  repos = strictRepos(unexpected);
  libraryRoot = mkdtempSync(path.join(os.tmpdir(), "series-service-"));
  service = seriesService(strictContext(repos, libraryRoot));
});
afterEach(() => {
  rmSync(libraryRoot, { recursive: true, force: true });
  expectNoUnexpectedCalls(unexpected);
});

describe("list and get", () => {
  it("presents rows as series views, with the form decided by the series-form rules", async () => {
    repos.series.list.mockResolvedValue([
      seriesRow({
        id: 1,
        title: "Books",
        folder: "Books",
        status: "finished",
        knownBookCount: 3,
        translationSourceLanguages: '["original","ja"]',
      }),
      seriesRow({ id: 2, title: "Strip", folder: "Strip", status: "finished", knownBookCount: 3, webtoon: true }),
      seriesRow({ id: 3, title: "Forced", folder: "Forced", form: "books" }),
    ]);
    const views = await service.list();
    expect(views[0]).toEqual({
      id: 1,
      title: "Books",
      folder: "Books",
      form: "books",
      formOverride: null,
      language: "en",
      originalLanguage: null,
      status: "finished",
      knownBookCount: 3,
      editionBookCount: null,
      webtoon: false,
      planWording: "books_first",
      monitored: true,
      assembleBooksAutomatically: false,
      translationFallbackEnabled: false,
      translationSourceLanguages: ["original", "ja"],
    });
    expect(views.map((v) => [v.id, v.form, v.formOverride])).toEqual([
      [1, "books", null],
      [2, "chapters", null],
      [3, "books", "books"],
    ]);
    expect(callLog(repos)).toEqual(["series.list"]);
  });

  it("refuses an unknown id with series_not_found", async () => {
    repos.series.get.mockResolvedValue(null);
    await expect(service.get(99)).rejects.toMatchObject({
      code: "series_not_found",
      status: 404,
      message: "series 99 does not exist",
    });
    expect(repos.series.get).toHaveBeenCalledWith(99);
    expect(callLog(repos)).toEqual(["series.get"]);
  });
});

describe("create", () => {
  it.each([
    ["a body that is not an object", "Alpha", "bad_request", undefined],
    ["a body that is an array", [], "bad_request", undefined],
    ["no title", {}, "invalid_field", "title"],
    ["a blank title", { title: "   " }, "invalid_field", "title"],
    ["a title that is not a string", { title: 7 }, "invalid_field", "title"],
    ["a title over 300 characters", { title: "x".repeat(301) }, "invalid_field", "title"],
    ["a folder over 300 characters", { title: "Alpha", folder: "x".repeat(301) }, "invalid_field", "folder"],
  ])("refuses %s before touching any repository", async (_name, body, code, field) => {
    await expect(rest.create(body)).rejects.toMatchObject({ code, extra: field ? { field } : {} });
    expect(callLog(repos)).toEqual([]);
    expect(readdirSync(libraryRoot)).toEqual([]);
  });

  it.each([
    ["an unknown status", { status: "done" }, "status"],
    ["a negative known_book_count", { known_book_count: -1 }, "known_book_count"],
    ["a fractional edition_book_count", { edition_book_count: 2.5 }, "edition_book_count"],
    ["a language that is not a code", { language: "english" }, "language"],
    ["a non-boolean webtoon", { webtoon: "yes" }, "webtoon"],
    ["an unknown form_override", { form_override: "both" }, "form_override"],
    ["an unknown source language", { translation_source_languages: ["klingon!"] }, "translation_source_languages"],
  ])("refuses %s with invalid_field, writing nothing and creating no folder", async (_name, fields, field) => {
    repos.series.byFolder.mockResolvedValue(null);
    await expect(rest.create({ title: "Alpha", ...fields })).rejects.toMatchObject({
      code: "invalid_field",
      status: 400,
      extra: { field },
    });
    expect(callLog(repos).filter((c) => c !== "series.byFolder")).toEqual([]);
    expect(readdirSync(libraryRoot)).toEqual([]);
  });

  it("refuses a folder another series already uses (409 series_folder_taken)", async () => {
    repos.series.byFolder.mockResolvedValue(seriesRow({ folder: "Alpha" }));
    await expect(rest.create({ title: "Alpha" })).rejects.toMatchObject({
      code: "series_folder_taken",
      status: 409,
      message: 'the folder "Alpha" already holds a series',
    });
    expect(repos.series.byFolder).toHaveBeenCalledWith("Alpha");
    expect(callLog(repos)).toEqual(["series.byFolder"]);
    expect(readdirSync(libraryRoot)).toEqual([]);
  });

  it("checks the safe folder name, not the raw title", async () => {
    repos.series.byFolder.mockResolvedValue(seriesRow({ folder: "What! Part 1 2" }));
    await expect(rest.create({ title: "  What?! Part 1/2  " })).rejects.toMatchObject({
      code: "series_folder_taken",
    });
    expect(repos.series.byFolder).toHaveBeenCalledWith("What! Part 1 2");
  });

  it("creates the series and its folder, and the book slots 1..N of a known book count", async () => {
    repos.series.byFolder.mockResolvedValue(null);
    repos.series.create.mockResolvedValue(
      seriesRow({ id: 12, title: "What?! Part 1/2", folder: "What! Part 1 2", status: "finished", knownBookCount: 3 }),
    );
    repos.slots.ensureVolumes.mockResolvedValue(3);
    // The library folder holds no series folder yet: asked whether files are recorded (a fresh library).
    repos.files.anyActive.mockResolvedValue(false);

    const view = await rest.create({ title: "  What?! Part 1/2  ", status: "finished", known_book_count: 3 });

    expect(repos.series.create).toHaveBeenCalledWith({
      title: "What?! Part 1/2",
      folder: "What! Part 1 2",
      status: "finished",
      knownBookCount: 3,
    });
    expect(repos.slots.ensureVolumes).toHaveBeenCalledWith(12, ["1", "2", "3"], true);
    expect(callLog(repos)).toEqual(["series.byFolder", "files.anyActive", "series.create", "slots.ensureVolumes"]);
    expect(existsSync(path.join(libraryRoot, "What! Part 1 2"))).toBe(true);
    expect(view).toMatchObject({
      id: 12,
      title: "What?! Part 1/2",
      folder: "What! Part 1 2",
      form: "books",
      status: "finished",
      knownBookCount: 3,
    });
  });

  it("uses the folder given, and adds no slots without a book count", async () => {
    repos.series.byFolder.mockResolvedValue(null);
    repos.series.create.mockResolvedValue(
      seriesRow({ id: 13, title: "Beta", folder: "beta-folder", monitored: false, webtoon: true }),
    );
    repos.files.anyActive.mockResolvedValue(false);

    const view = await rest.create({ title: "Beta", folder: "beta-folder", monitored: false, webtoon: true });

    expect(repos.series.byFolder).toHaveBeenCalledWith("beta-folder");
    expect(repos.series.create).toHaveBeenCalledWith({
      title: "Beta",
      folder: "beta-folder",
      monitored: false,
      webtoon: true,
    });
    expect(callLog(repos)).toEqual(["series.byFolder", "files.anyActive", "series.create"]);
    expect(readdirSync(libraryRoot)).toEqual(["beta-folder"]);
    expect(view).toMatchObject({ id: 13, folder: "beta-folder", monitored: false, webtoon: true, form: "chapters" });
  });

  it("makes the book slots unmonitored when the series is", async () => {
    repos.series.byFolder.mockResolvedValue(null);
    repos.series.create.mockResolvedValue(
      seriesRow({ id: 14, title: "Gamma", folder: "Gamma", knownBookCount: 2, monitored: false }),
    );
    repos.slots.ensureVolumes.mockResolvedValue(2);
    repos.files.anyActive.mockResolvedValue(false);
    await rest.create({ title: "Gamma", known_book_count: 2, monitored: false });
    expect(repos.slots.ensureVolumes).toHaveBeenCalledWith(14, ["1", "2"], false);
  });

  it("refuses on an empty mount point (files recorded, no series folder) and makes nothing", async () => {
    repos.series.byFolder.mockResolvedValue(null);
    repos.files.anyActive.mockResolvedValue(true);
    await expect(rest.create({ title: "Delta" })).rejects.toMatchObject({ code: "library_root_empty" });
    expect(callLog(repos)).toEqual(["series.byFolder", "files.anyActive"]);
    expect(readdirSync(libraryRoot)).toEqual([]);
  });

  it("does not ask for recorded files when the library folder holds a series folder", async () => {
    mkdirSync(path.join(libraryRoot, "Existing"));
    repos.series.byFolder.mockResolvedValue(null);
    repos.series.create.mockResolvedValue(seriesRow({ id: 15, title: "Epsilon", folder: "Epsilon" }));
    await rest.create({ title: "Epsilon" });
    expect(callLog(repos)).toEqual(["series.byFolder", "series.create"]);
  });
});

describe("update (PATCH)", () => {
  it("refuses an unknown id before applying the patch's rules", async () => {
    repos.series.get.mockResolvedValue(null);
    await expect(service.update(99, { title: "" })).rejects.toMatchObject({
      code: "series_not_found",
      status: 404,
    });
    expect(callLog(repos)).toEqual(["series.get"]);
  });

  it.each([
    ["an empty title", { title: "" }, "title"],
    ["a whitespace title", { title: "  " }, "title"],
    ["a non-boolean monitored", { monitored: 1 }, "monitored"],
    ["an unknown plan_wording", { plan_wording: "books_last" }, "plan_wording"],
    ["a known_book_count above the limit", { known_book_count: 10_001 }, "known_book_count"],
    ["a translation list that is not a list", { translation_source_languages: "ja" }, "translation_source_languages"],
  ])("refuses %s with invalid_field and writes nothing", async (_name, body, field) => {
    repos.series.get.mockResolvedValue(seriesRow());
    await expect(rest.update(7, body)).rejects.toMatchObject({
      code: "invalid_field",
      status: 400,
      extra: { field },
    });
    expect(callLog(repos).filter((c) => c !== "series.get")).toEqual([]);
  });

  it("refuses a body that is not an object", async () => {
    repos.series.get.mockResolvedValue(seriesRow());
    await expect(rest.update(7, null)).rejects.toMatchObject({ code: "bad_request" });
    expect(callLog(repos)).toEqual([]);
  });

  it("sets known_book_count and ensures volume slots 1..N, monitored like the series", async () => {
    repos.series.get.mockResolvedValue(seriesRow());
    repos.series.update.mockResolvedValue(seriesRow({ knownBookCount: 4, monitored: false }));
    repos.slots.ensureVolumes.mockResolvedValue(4);

    const view = await rest.update(7, { known_book_count: 4 });

    expect(repos.series.update).toHaveBeenCalledWith(7, { knownBookCount: 4 });
    expect(repos.slots.ensureVolumes).toHaveBeenCalledWith(7, ["1", "2", "3", "4"], false);
    expect(callLog(repos)).toEqual(["series.get", "series.update", "slots.ensureVolumes"]);
    expect(view.knownBookCount).toBe(4);
  });

  it("takes the edition's book count over the known one for the slots", async () => {
    repos.series.get.mockResolvedValue(seriesRow({ knownBookCount: 5 }));
    repos.series.update.mockResolvedValue(seriesRow({ knownBookCount: 5, editionBookCount: 2 }));
    repos.slots.ensureVolumes.mockResolvedValue(0);
    await rest.update(7, { edition_book_count: 2 });
    expect(repos.series.update).toHaveBeenCalledWith(7, { editionBookCount: 2 });
    expect(repos.slots.ensureVolumes).toHaveBeenCalledWith(7, ["1", "2"], true);
  });

  it("clears a book count without adding slots", async () => {
    repos.series.get.mockResolvedValue(seriesRow({ knownBookCount: 5 }));
    repos.series.update.mockResolvedValue(seriesRow({ knownBookCount: null }));
    await rest.update(7, { known_book_count: null });
    expect(repos.series.update).toHaveBeenCalledWith(7, { knownBookCount: null });
    expect(callLog(repos)).toEqual(["series.get", "series.update"]);
  });

  it("maps the REST spelling onto the columns, trims the title and leaves absent fields out", async () => {
    repos.series.get.mockResolvedValue(seriesRow());
    repos.series.update.mockResolvedValue(seriesRow());
    await rest.update(7, {
      title: "  Renamed  ",
      form_override: null,
      original_language: null,
      language: "pt-BR",
      translation_source_languages: ["original", "ja"],
      translation_fallback_enabled: true,
      assemble_books_automatically: true,
      plan_wording: "chapters_first",
      status: "paused",
      unknown_field: "ignored",
    });
    expect(repos.series.update).toHaveBeenCalledWith(7, {
      title: "Renamed",
      form: null,
      originalLanguage: null,
      language: "pt-BR",
      translationSourceLanguages: '["original","ja"]',
      translationFallbackEnabled: true,
      assembleBooksAutomatically: true,
      planWording: "chapters_first",
      status: "paused",
    });
  });
});
