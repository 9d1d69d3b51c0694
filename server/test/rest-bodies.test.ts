/**
 * The REST bodies (snake_case JSON) as the services' typed inputs: each field lands under its
 * camelCase name, absent fields stay absent, and a JSON type error is refused with the code the
 * API has always answered (the rules themselves are the services' and are tested through the API).
 */
import { describe, expect, it } from "vitest";
import { indexerSettingsBody, assignBody, dismissBody } from "../src/http/bodies/indexer.ts";
import { translationSettingsBody } from "../src/http/bodies/translation-settings.ts";
import { catalogueSettingsBody, linkedSeriesBody, offerAcceptBody } from "../src/http/bodies/catalogues.ts";
import { sourceLinkBody } from "../src/http/bodies/sources.ts";
import { offerPickBody, monitorBody } from "../src/http/bodies/units.ts";
import { verificationBody } from "../src/http/bodies/verification.ts";
import { bookStartsBody } from "../src/http/bodies/maps.ts";
import { loginBody, passwordChangeBody } from "../src/http/bodies/sessions.ts";

const refused = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e as { code: string; extra?: Record<string, unknown> };
  }
  throw new Error("expected a refusal");
};

describe("REST bodies as typed inputs", () => {
  it("indexer settings: snake_case keys, the mount's paths, secrets", () => {
    expect(
      indexerSettingsBody({
        prowlarr: { api_key: "k", enabled: true },
        qbittorrent: {
          save_path: "/dl",
          mount: { client_path: "/dl", local_path: "/srv/dl" },
          retention: "keep_seeding",
        },
      }),
    ).toEqual({
      prowlarr: { enabled: true, apiKey: "k" },
      qbittorrent: {
        savePath: "/dl",
        mount: { clientPath: "/dl", localPath: expect.stringMatching(/srv.dl$/) },
        retention: "keep_seeding",
        password: undefined,
      },
    });
    expect(refused(() => indexerSettingsBody({ qbittorrent: { mount: "x" } })).code).toBe("bad_request");
    expect(refused(() => indexerSettingsBody({ prowlarr: { enabled: "yes" } })).extra).toEqual({
      field: "prowlarr.enabled",
    });
  });

  it("translation, catalogue and source settings", () => {
    expect(
      translationSettingsBody({ source_languages: ["ja"], ai: { base_url: "", api_key: "sk" }, processor: null }),
    ).toEqual({ sourceLanguages: ["ja"], ai: { baseUrl: null, apiKey: "sk" } });
    expect(catalogueSettingsBody({ mangadex: { cover_base_url: null, enabled: false } })).toEqual({
      mangadex: { enabled: false, coverBaseUrl: null },
    });
    expect(refused(() => catalogueSettingsBody({ kitsu: {} })).extra).toEqual({ field: "kitsu" });
    expect(sourceLinkBody({ provider: "p", source_id: "7", language: "en", priority: 3 })).toEqual({
      provider: "p",
      sourceId: "7",
      language: "en",
      priority: 3,
    });
  });

  it("series, offers, units, proofs, map editor, sessions", () => {
    expect(
      linkedSeriesBody({ catalogue: "mangaupdates", catalogue_id: 15, title: null, known_book_count: 3 }),
    ).toMatchObject({ catalogue: "mangaupdates", catalogueId: "15", knownBookCount: 3 });
    expect(offerAcceptBody({ known_book_count: 4 })).toEqual({ knownBookCount: 4 });
    expect(offerPickBody({ mapping_id: 2, external_id: "x" })).toEqual({ mappingId: 2, externalId: "x" });
    expect(monitorBody({ kind: "book", number: "2", monitored: false })).toEqual({
      kind: "book",
      number: "2",
      monitored: false,
    });
    expect(dismissBody({ remove_from_client: true })).toEqual({ removeFromClient: true });
    expect(dismissBody({})).toEqual({ removeFromClient: false });
    expect(() => dismissBody([1])).toThrow(/must be a JSON object/);
    expect(() => dismissBody({ remove_from_client: "yes" })).toThrow(/remove_from_client must be true or false/);
    expect(assignBody({ file: "a.cbz", book: "1" })).toEqual({ assignments: [{ file: "a.cbz", book: "1" }] });
    expect(verificationBody({ digest: "d", chapters: ["1"], source_url: null, note: "n" })).toEqual({
      digest: "d",
      chapters: ["1"],
      sourceUrl: null,
      note: "n",
    });
    expect(bookStartsBody({ revision: 1, starts: [{ volume: "1", start: "1" }], last_end: "9" })).toEqual({
      revision: 1,
      starts: [{ volume: "1", start: "1" }],
      lastEnd: "9",
    });
    expect(
      refused(() => bookStartsBody({ revision: 1, starts: [{ volume: "1", start: "1" }], last_end: 9 })).code,
    ).toBe("invalid_label");
    expect(refused(() => loginBody({ username: 1, password: "x" })).code).toBe("bad_credentials");
    expect(passwordChangeBody({ current_password: "old", new_password: "a-new-one" })).toEqual({
      currentPassword: "old",
      newPassword: "a-new-one",
    });
  });
});
