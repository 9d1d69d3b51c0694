/** REST bodies of the book channel (snake_case JSON) parsed into its services' typed inputs. */
import {
  absolute,
  RETENTIONS,
  bool,
  secret,
  text,
  type IndexerSettingsInput,
  type ProwlarrSettingsInput,
  type QbittorrentSettingsInput,
} from "../../services/acquisition/book-channel-settings.ts";
import type { AssignInput, DismissInput } from "../../services/acquisition/book-channel.ts";
import { asLabel, asObject, invalidField, optionalBoolean, optionalHttpUrl } from "../../services/input.ts";

/** PUT /api/settings/indexer: `{ prowlarr?: { enabled?, url?, api_key? }, qbittorrent?: { …, save_path?, mount? } }` */
export function indexerSettingsBody(body: unknown): IndexerSettingsInput {
  const b = asObject(body);
  const input: IndexerSettingsInput = {};
  if (b.prowlarr !== undefined) {
    const p = asObject(b.prowlarr, "prowlarr");
    const out: ProwlarrSettingsInput = {};
    if (p.enabled !== undefined) out.enabled = bool(p.enabled, "prowlarr.enabled");
    if (p.url !== undefined) out.url = optionalHttpUrl(p.url, "prowlarr.url");
    out.apiKey = secret(p.api_key, "prowlarr.api_key");
    input.prowlarr = out;
  }
  if (b.qbittorrent !== undefined) {
    const q = asObject(b.qbittorrent, "qbittorrent");
    const out: QbittorrentSettingsInput = {};
    if (q.enabled !== undefined) out.enabled = bool(q.enabled, "qbittorrent.enabled");
    if (q.url !== undefined) out.url = optionalHttpUrl(q.url, "qbittorrent.url");
    if (q.username !== undefined) out.username = text(q.username, "qbittorrent.username");
    if (q.category !== undefined) out.category = text(q.category, "qbittorrent.category", 100);
    if (q.tag !== undefined) out.tag = text(q.tag, "qbittorrent.tag", 100);
    if (q.save_path !== undefined)
      out.savePath =
        q.save_path === null || q.save_path === "" ? null : absolute(q.save_path, "qbittorrent.save_path", true);
    if (q.mount !== undefined) {
      if (q.mount === null) out.mount = null;
      else {
        const m = asObject(q.mount, "qbittorrent.mount");
        out.mount = {
          clientPath: absolute(m.client_path, "qbittorrent.mount.client_path", true),
          localPath: absolute(m.local_path, "qbittorrent.mount.local_path", false),
        };
      }
    }
    if (q.retention !== undefined)
      out.retention =
        typeof q.retention === "string"
          ? q.retention
          : invalidField("qbittorrent.retention", `must be one of ${RETENTIONS.join(", ")}`);
    out.password = secret(q.password, "qbittorrent.password");
    input.qbittorrent = out;
  }
  return input;
}

/** POST /api/torrents/{id}/dismiss: an empty body, or `{ remove_from_client?: boolean }`. */
export function dismissBody(body: unknown): DismissInput {
  return { removeFromClient: optionalBoolean(asObject(body), "remove_from_client") ?? false };
}

/** POST /api/torrents/{id}/assign: `{ assignments: [{ file, book }] }`, or one `{ file, book }`. */
export function assignBody(body: unknown): AssignInput {
  const o = asObject(body);
  const list = o.assignments === undefined ? [o] : o.assignments;
  if (!Array.isArray(list) || list.length === 0)
    return invalidField("assignments", "a non-empty list of { file, book }");
  return {
    assignments: list.map((a, i) => {
      const x = asObject(a, `assignments[${i}]`);
      if (typeof x.file !== "string")
        return invalidField(`assignments[${i}].file`, "the name of a file of the torrent, as listed");
      return { file: x.file, book: asLabel(x.book, `assignments[${i}].book`) };
    }),
  };
}
