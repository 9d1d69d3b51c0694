import { describe, expect, it } from "vitest";
import { changesOf, draftOf, refusedField, type SeriesSettings } from "./edit-series";

const series: SeriesSettings = {
  id: 3,
  title: "Lanterns of the Salt Road",
  form: "BOOKS",
  formOverride: null,
  language: "en",
  originalLanguage: null,
  status: "FINISHED",
  knownBookCount: 4,
  editionBookCount: null,
  webtoon: false,
  monitored: true,
  assembleBooksAutomatically: false,
};

describe("changesOf", () => {
  it("sends nothing for the draft as loaded", () => {
    expect(changesOf(series, draftOf(series))).toEqual({ input: {}, changed: 0, problems: {} });
  });

  it("sends only the fields that changed, empty boxes as null and Automatic as no override", () => {
    const draft = {
      ...draftOf(series),
      status: "PAUSED" as const,
      knownBookCount: " 6 ",
      webtoon: true,
      originalLanguage: " ja ",
      form: "CHAPTERS" as const,
    };
    expect(changesOf(series, draft)).toEqual({
      input: { status: "PAUSED", knownBookCount: 6, webtoon: true, originalLanguage: "ja", formOverride: "CHAPTERS" },
      changed: 5,
      problems: {},
    });
    const overridden = { ...series, formOverride: "CHAPTERS" as const, originalLanguage: "ja", editionBookCount: 2 };
    const cleared = { ...draftOf(overridden), form: "AUTOMATIC" as const, originalLanguage: "", editionBookCount: "" };
    expect(changesOf(overridden, cleared).input).toEqual({
      formOverride: null,
      originalLanguage: null,
      editionBookCount: null,
    });
  });

  it("passes values on for the service to judge: an empty title, a bad language, a negative count", () => {
    const draft = { ...draftOf(series), title: "", language: "english", knownBookCount: "-1" };
    expect(changesOf(series, draft)).toEqual({
      input: { title: "", language: "english", knownBookCount: -1 },
      changed: 3,
      problems: {},
    });
  });

  it("holds back a count box whose text is no number GraphQL can carry", () => {
    const draft = { ...draftOf(series), knownBookCount: "four", editionBookCount: "99999999999" };
    const changes = changesOf(series, draft);
    expect(Object.keys(changes.problems).sort()).toEqual(["editionBookCount", "knownBookCount"]);
    expect(changes.input).toEqual({});
  });
});

describe("refusedField", () => {
  const refusal = (field: unknown, message = "refused") => ({
    graphQLErrors: [{ message, extensions: { code: "invalid_field", field } }],
  });

  it("names the dialog's field from the service's REST spelling", () => {
    expect(refusedField(refusal("language", 'language must be a language code such as "en"'))).toEqual({
      field: "language",
      message: 'language must be a language code such as "en"',
    });
    expect(refusedField(refusal("known_book_count"))?.field).toBe("knownBookCount");
    expect(refusedField(refusal("assemble_books_automatically"))?.field).toBe("assembleBooksAutomatically");
    expect(refusedField(refusal("form_override"))?.field).toBe("form");
  });

  it("names it from the path of the text check of a request's strings", () => {
    expect(refusedField(refusal("variables.input.originalLanguage"))?.field).toBe("originalLanguage");
    expect(refusedField(refusal("variables.input.title"))?.field).toBe("title");
  });

  it("is null for an error that names none of the dialog's fields", () => {
    expect(refusedField(refusal("translation_source_languages"))).toBeNull();
    expect(refusedField({ graphQLErrors: [{ message: "gone", extensions: { code: "series_not_found" } }] })).toBeNull();
    expect(refusedField({ networkError: new Error("offline"), graphQLErrors: [] })).toBeNull();
    expect(refusedField(new Error("boom"))).toBeNull();
  });
});
