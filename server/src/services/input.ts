/**
 * Validation of untrusted input shared by REST and GraphQL. The object helpers (`optionalString(o,
 * key)`, …) read a REST body's JSON in http/bodies; the value helpers (`checkString(v, field)`, …)
 * apply the same rules to a service's typed input, so both APIs get the same coded errors back.
 */
import { AppError } from "../errors.ts";
import { parseLabel, type Label } from "../domain/labels.ts";
import type { MapEntryFacts } from "../domain/types.ts";
import { UNSAFE_TEXT_WORDS, unsafeText } from "../domain/safe-text.ts";

/** Nesting of a request's JSON (a deeper body is refused before anything walks it recursively). */
export const MAX_JSON_NESTING = 64;

/** One text value (a query parameter, a GraphQL string literal): 400 `invalid_field` unless well-formed text. */
export function refuseUnsafeString(value: string, field: string, options: { multiline?: boolean } = {}): void {
  const why = unsafeText(value, options);
  if (why) throw new AppError("invalid_field", `${field} ${UNSAFE_TEXT_WORDS[why]}`, { field, reason: why });
}

/**
 * Every string of a request's JSON (REST body, GraphQL variables) must be well-formed text: no
 * lone surrogate, no control character but tab and line breaks (single-line fields refuse those
 * too, in optionalString). Refused with 400 `invalid_field` naming the field's path. Iterative, so
 * that no nesting can exhaust the stack; nesting beyond MAX_JSON_NESTING is 400 `bad_request`.
 */
export function refuseUnsafeText(value: unknown, root = "body"): void {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: value, path: root, depth: 0 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { v, path, depth } = item;
    if (typeof v === "string") {
      const why = unsafeText(v, { multiline: true });
      if (why) throw new AppError("invalid_field", `${path} ${UNSAFE_TEXT_WORDS[why]}`, { field: path, reason: why });
      continue;
    }
    if (typeof v !== "object" || v === null) continue;
    if (depth >= MAX_JSON_NESTING) {
      throw new AppError("bad_request", `${path} is nested more than ${MAX_JSON_NESTING} levels deep`);
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: `${path}[${i}]`, depth: depth + 1 });
    } else {
      for (const [k, x] of Object.entries(v)) {
        const why = unsafeText(k);
        if (why)
          throw new AppError("invalid_field", `a key of ${path} ${UNSAFE_TEXT_WORDS[why]}`, {
            field: path,
            reason: why,
          });
        stack.push({ v: x, path: `${path}.${k}`, depth: depth + 1 });
      }
    }
  }
}

export function asObject(v: unknown, what = "body"): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new AppError("bad_request", `${what} must be a JSON object`);
  return v as Record<string, unknown>;
}

/** Exact decimal labels travel as strings ("0", "10.5"), never floats. */
export function asLabel(v: unknown, field: string): Label {
  if (typeof v !== "string")
    throw new AppError("invalid_label", `${field} must be an exact decimal string such as "7" or "10.5"`, { field });
  const l = parseLabel(v);
  if (l === null)
    throw new AppError("invalid_label", `${field} is not an exact decimal number: ${JSON.stringify(v)}`, { field });
  return l;
}

export function asRevision(v: unknown): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) {
    throw new AppError("bad_request", "revision must be the non-negative integer read with the map", {
      field: "revision",
    });
  }
  return v;
}

export function asEntries(v: unknown, field = "entries"): MapEntryFacts[] {
  if (!Array.isArray(v))
    throw new AppError("bad_request", `${field} must be an array of { volume, chapters }`, { field });
  if (v.length > 5000) throw new AppError("bad_request", `${field} has too many entries`, { field });
  return v.map((raw, i) => {
    const o = asObject(raw, `${field}[${i}]`);
    const volume = asLabel(o.volume, `${field}[${i}].volume`);
    if (!Array.isArray(o.chapters))
      throw new AppError("bad_request", `${field}[${i}].chapters must be an array (empty = unknown)`, { field });
    if (o.chapters.length > 5000) throw new AppError("bad_request", `${field}[${i}].chapters is too long`, { field });
    const chapters = o.chapters.map((c, j) => asLabel(c, `${field}[${i}].chapters[${j}]`));
    return { volume, chapters };
  });
}

export function asId(v: string | number | undefined, what = "id"): number {
  // A path or query id is plain digits: Number() would also read "1e3", "0x10", "+1" or " 7 ".
  if (typeof v === "string" && !/^[0-9]{1,10}$/.test(v))
    throw new AppError("bad_request", `${what} must be a positive integer`);
  const n = typeof v === "number" ? v : Number(v);
  if (!Number.isInteger(n) || n <= 0 || n > 2 ** 31 - 1)
    throw new AppError("bad_request", `${what} must be a positive integer`);
  return n;
}

export function optionalBoolean(o: Record<string, unknown>, key: string): boolean | undefined {
  return checkBoolean(o[key], key);
}

/** optionalBoolean for one value (a typed input's field), named `key` in the error. */
export function checkBoolean(v: unknown, key: string): boolean | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "boolean") throw new AppError("invalid_field", `${key} must be true or false`, { field: key });
  return v;
}

/** A string field of at most `max` characters; single-line unless `multiline` (a note may hold line breaks). */
export function optionalString(
  o: Record<string, unknown>,
  key: string,
  max = 500,
  options: { multiline?: boolean } = {},
): string | undefined {
  return checkString(o[key], key, max, options);
}

/** optionalString for one value (a typed input's field), named `field` in the error. */
export function checkString(
  v: unknown,
  field: string,
  max = 500,
  options: { multiline?: boolean } = {},
): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string" || v.length > max)
    throw new AppError("invalid_field", `${field} must be a string of at most ${max} characters`, { field });
  const why = unsafeText(v, options);
  if (why) throw new AppError("invalid_field", `${field} ${UNSAFE_TEXT_WORDS[why]}`, { field, reason: why });
  return v;
}

export function optionalEnum<T extends string>(
  o: Record<string, unknown>,
  key: string,
  values: readonly T[],
): T | undefined {
  return checkEnum(o[key], key, values);
}

/** optionalEnum for one value (a typed input's field), named `key` in the error. */
export function checkEnum<T extends string>(v: unknown, key: string, values: readonly T[]): T | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !(values as readonly string[]).includes(v)) {
    throw new AppError("invalid_field", `${key} must be one of ${values.join(", ")}`, { field: key });
  }
  return v as T;
}

export function optionalCount(o: Record<string, unknown>, key: string, max = 10_000): number | null | undefined {
  return checkCount(o[key], key, max);
}

/** optionalCount for one value (a typed input's field), named `key` in the error. */
export function checkCount(v: unknown, key: string, max = 10_000): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === null) return null;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > max) {
    throw new AppError("invalid_field", `${key} must be an integer from 0 to ${max}, or null`, { field: key });
  }
  return v;
}

export function optionalLanguage(o: Record<string, unknown>, key: string): string | undefined {
  return checkLanguage(o[key], key);
}

/** optionalLanguage for one value (a typed input's field), named `key` in the error. */
export function checkLanguage(v: unknown, key: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/.test(v)) {
    throw new AppError("invalid_field", `${key} must be a language code such as "en" or "pt-BR"`, { field: key });
  }
  return v;
}

export function optionalLanguageList(o: Record<string, unknown>, key: string): string[] | undefined {
  return checkLanguageList(o[key], key);
}

/** optionalLanguageList for one value (a typed input's field), named `key` in the error. */
export function checkLanguageList(v: unknown, key: string): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length > 20)
    throw new AppError("invalid_field", `${key} must be a list of language codes`, { field: key });
  return v.map((x, i) => {
    if (typeof x !== "string" || !(x === "original" || /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/.test(x))) {
      throw new AppError("invalid_field", `${key}[${i}] must be "original" or a language code`, { field: key });
    }
    return x;
  });
}

/** Throws the coded error for a field that fails its rule. */
export const invalidField = (field: string, why: string): never => {
  throw new AppError("invalid_field", `${field} ${why}`, { field });
};

/**
 * An http(s) base URL of an integration, without a trailing slash; null for "" or null (not set).
 * No credentials, query or fragment: a key in a URL would end up in logs.
 */
export function optionalHttpUrl(v: unknown, field: string): string | null {
  if (v === null || v === "") return null;
  if (typeof v !== "string" || v.length > 500) return invalidField(field, "must be an http(s) URL");
  let u: URL;
  try {
    u = new URL(v.trim());
  } catch {
    return invalidField(field, "must be an http(s) URL");
  }
  if ((u.protocol !== "http:" && u.protocol !== "https:") || u.username || u.password || u.search || u.hash) {
    return invalidField(field, "must be an http(s) URL without credentials, query or fragment");
  }
  return u.toString().replace(/\/+$/, "");
}
