import { AppError, ERRORS, isAppError } from "../errors.ts";
import { ProviderError, providerFailed } from "../providers/provider.ts";

/** RFC 9457 problem details with the service's stable `code`. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  [key: string]: unknown;
}

export function toProblem(error: unknown, log?: (m: string) => void): Problem {
  // An upstream failure is never passed off as our own status (nor as an internal error).
  const e = error instanceof ProviderError ? providerFailed(error) : error;
  if (isAppError(e)) {
    // The problem's own members come last: an `extra` field (an upstream's status, say) can add
    // to the body but never change its status, code or type.
    return {
      ...e.extra,
      type: `about:blank#${e.code}`,
      title: e.title,
      status: e.status,
      detail: e.message,
      code: e.code,
    };
  }
  // Unexpected errors are logged without their message reaching the client (it may hold paths or secrets).
  log?.(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  const { status, title } = ERRORS.internal;
  return {
    type: "about:blank#internal",
    title,
    status,
    detail: "The service failed unexpectedly; see its log.",
    code: "internal",
  };
}

export function problemResponse(e: unknown, log?: (m: string) => void): Response {
  const p = toProblem(e, log);
  const headers: Record<string, string> = { "content-type": "application/problem+json" };
  // A refusal that ends by itself says when (login throttling): the body's retry_after, as the header.
  if (typeof p.retry_after === "number") headers["retry-after"] = String(p.retry_after);
  return new Response(JSON.stringify(p), { status: p.status, headers });
}

export { AppError };
