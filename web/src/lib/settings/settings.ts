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
