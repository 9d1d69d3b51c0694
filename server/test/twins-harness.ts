/**
 * One operation asked both ways — REST and its GraphQL twin — on a running app, and the two answers
 * reduced to what must agree: the status (HTTP for REST, `extensions.status` for GraphQL), the
 * code, the extra fields of the problem (`field`, `reason`, …) and, for a good request, the data
 * with field names aside (snake_case against camelCase, GraphQL enums against REST's lowercase).
 */
import { expect } from "vitest";
import type { TestApp } from "./utils.ts";

export interface RestRequest {
  method?: string;
  path: string;
  json?: unknown;
}
export interface GqlRequest {
  query: string;
  variables?: Record<string, unknown>;
}
export interface Outcome {
  status: number;
  code: string | null;
  extra: Record<string, unknown>;
  data: unknown;
}

const PROBLEM_KEYS = new Set(["type", "title", "status", "detail", "code", "instance"]);
const EXTENSION_KEYS = new Set(["code", "status", "http"]);

export async function restOutcome(app: TestApp, r: RestRequest): Promise<Outcome> {
  const res = await app.api(r.path, { method: r.method ?? "GET", ...(r.json === undefined ? {} : { json: r.json }) });
  const text = await res.text();
  const body = text === "" ? null : (JSON.parse(text) as unknown);
  if (res.status < 400) return { status: res.status, code: null, extra: {}, data: body };
  const p = body as Record<string, unknown>;
  const extra = Object.fromEntries(Object.entries(p).filter(([k]) => !PROBLEM_KEYS.has(k)));
  return { status: res.status, code: p.code as string, extra, data: null };
}

export async function gqlOutcome(app: TestApp, g: GqlRequest): Promise<Outcome> {
  const res = await app.api("/graphql", { method: "POST", json: { query: g.query, variables: g.variables ?? {} } });
  const body = (await res.json()) as {
    data?: Record<string, unknown> | null;
    errors?: { extensions?: Record<string, unknown> }[];
  };
  const error = body.errors?.[0];
  if (error) {
    const ext = error.extensions ?? {};
    const extra = Object.fromEntries(Object.entries(ext).filter(([k]) => !EXTENSION_KEYS.has(k)));
    return { status: ext.status as number, code: (ext.code as string | undefined) ?? null, extra, data: null };
  }
  const data = body.data ?? {};
  return { status: res.status, code: null, extra: {}, data: Object.values(data)[0] };
}

/** Both transports asked; the failure message names the row and shows both answers. */
export async function askBoth(app: TestApp, rest: RestRequest, gql: GqlRequest) {
  const [r, g] = [await restOutcome(app, rest), await gqlOutcome(app, gql)];
  return { rest: r, gql: g };
}

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** GraphQL's answer spelled as REST spells it: keys snake_case, enum values lowercase. */
export function asRest(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(asRest);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [snake(k), asRest(x)]));
  if (typeof v === "string" && /^[A-Z][A-Z0-9_]*$/.test(v)) return v.toLowerCase();
  return v;
}

/**
 * What GraphQL selected must be in REST's answer with the same value (REST may carry more). Null
 * where REST has a field GraphQL selected is a disagreement too.
 */
export function expectSameData(name: string, rest: unknown, gql: unknown): void {
  const g = asRest(gql);
  const missing: string[] = [];
  const walk = (r: unknown, x: unknown, at: string): void => {
    if (Array.isArray(x)) {
      if (!Array.isArray(r) || r.length !== x.length) {
        missing.push(`${at}: ${JSON.stringify(r)?.slice(0, 200)} vs ${JSON.stringify(x).slice(0, 200)}`);
        return;
      }
      x.forEach((v, i) => walk(r[i], v, `${at}[${i}]`));
      return;
    }
    if (x && typeof x === "object") {
      if (!r || typeof r !== "object") {
        missing.push(`${at}: REST ${JSON.stringify(r)} vs GraphQL object`);
        return;
      }
      for (const [k, v] of Object.entries(x)) {
        if (!(k in r)) missing.push(`${at}.${k}: absent in REST`);
        else walk((r as Record<string, unknown>)[k], v, `${at}.${k}`);
      }
      return;
    }
    // Enum values: `BOOK_ON_DISK` is REST's "book on disk".
    const word = (v: unknown) => (typeof v === "string" ? v.toLowerCase().replaceAll(" ", "_") : v);
    const rv = typeof x === "string" ? word(r) : r;
    const xv = word(x);
    if (rv !== xv) missing.push(`${at}: REST ${JSON.stringify(r)} vs GraphQL ${JSON.stringify(x)}`);
  };
  walk(rest, g, name);
  expect(missing, `${name}: the data differs`).toEqual([]);
}

/** The agreement itself: same status, same code, same extra fields (GraphQL's `field` spelled as REST's). */
export function expectAgree(name: string, both: { rest: Outcome; gql: Outcome }): void {
  const { rest, gql } = both;
  const restOk = rest.status < 400;
  const gqlOk = gql.status < 400;
  const extra = asRest(gql.extra) as Record<string, unknown>;
  // A text refusal names where the text was in its own transport (`body.title`, `variables.i.title`,
  // the variable's name being the client's): compared from the field on.
  if (typeof extra.field === "string") extra.field = snake(extra.field.replace(/^variables\.[^.]+\./, ""));
  const restExtra = { ...rest.extra };
  if (typeof restExtra.field === "string") restExtra.field = restExtra.field.replace(/^body\./, "");
  expect(
    { ok: gqlOk, status: gqlOk ? "2xx" : gql.status, code: gql.code, extra: gqlOk ? {} : extra },
    `${name}: GraphQL answered otherwise than REST`,
  ).toEqual({ ok: restOk, status: restOk ? "2xx" : rest.status, code: rest.code, extra: restExtra });
}

/**
 * A malformed id, REST text beside the GraphQL value a client would send for the same mistake:
 * `1e3` has no GraphQL spelling (a JSON 1e3 is the number 1000), so its twin is the other
 * non-integer, 1.5.
 */
export const MALFORMED_IDS: readonly (readonly [string, unknown])[] = [
  ["0", 0],
  ["-1", -1],
  ["1e3", 1.5],
  ["abc", "abc"],
  ["99999999999", 99_999_999_999],
  ["2147483648", 2_147_483_648],
];

/** A well-formed positive id nothing has: 404 on both sides. */
export const UNKNOWN_ID = 987_654;
