/**
 * Pure helpers of the settings forms. Secrets are never echoed: the form holds only a replacement
 * typed by the operator, and the input sent says keep (absent), replace (a string) or clear (null).
 */

export interface SecretEdit {
  /** What the operator typed to replace the stored secret ("" = keep). */
  replacement: string;
  /** Remove the stored secret. */
  clear: boolean;
}

export const KEEP: SecretEdit = { replacement: "", clear: false };

/** The API's secret field: absent keeps it, null clears it, a string replaces it. */
export function secretInput(edit: SecretEdit): { value?: string | null } {
  if (edit.clear) return { value: null };
  if (edit.replacement !== "") return { value: edit.replacement };
  return {};
}

/** "set" / "not set": what the page says instead of the secret. */
export function secretStatus(isSet: boolean): string {
  return isSet ? "set" : "not set";
}

/** Empty text → null (the API clears the field), else the trimmed text. */
export function optionalText(value: string): string | null {
  const v = value.trim();
  return v === "" ? null : v;
}

export const RETENTIONS = [
  { value: "keep_seeding", label: "Keep seeding" },
  { value: "remove_after_import", label: "Remove after import" },
  { value: "remove_when_seeded", label: "Remove when seeded" },
] as const;

/** The mount mapping: both paths or none; one alone is a mistake the form reports. */
export function mountInput(
  clientPath: string,
  localPath: string,
): { mount: { clientPath: string; localPath: string } | null } | { problem: string } {
  const c = clientPath.trim();
  const l = localPath.trim();
  if (c === "" && l === "") return { mount: null };
  if (c === "" || l === "") return { problem: "Give both folders of the mount mapping, or neither." };
  return { mount: { clientPath: c, localPath: l } };
}

/** One outside service's answer to the saved settings (the indexerCheck query). */
export interface ConnectionAnswer {
  status: "OK" | "FAILED" | "OFF";
  detail: string | null;
}

/**
 * What the page says of the check after a save: the services that answered, and those that did not
 * (with their reason). A service that is off says nothing.
 */
export function checkSentences(check: {
  prowlarr: ConnectionAnswer & { indexers: number | null };
  qbittorrent: ConnectionAnswer & { version: string | null };
}): { answered: string[]; failed: string[] } {
  const answered: string[] = [];
  const failed: string[] = [];
  const p = check.prowlarr;
  if (p.status === "OK")
    answered.push(
      p.indexers
        ? `Prowlarr answered: ${p.indexers === 1 ? "1 indexer" : `${p.indexers} indexers`} enabled.`
        : "Prowlarr answered, but none of its indexers is enabled: enable one in Prowlarr.",
    );
  else if (p.status === "FAILED") failed.push(`Prowlarr did not answer: ${p.detail ?? "no reason given"}`);
  const q = check.qbittorrent;
  if (q.status === "OK") answered.push(`qBittorrent answered: version ${q.version ?? "unknown"}.`);
  else if (q.status === "FAILED") failed.push(`qBittorrent did not answer: ${q.detail ?? "no reason given"}`);
  return { answered, failed };
}
