import { AppError, ERRORS, isAppError } from "../errors.ts";

/** RFC 9457 problem details with the service's stable `code`. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  [key: string]: unknown;
}

export function toProblem(e: unknown, log?: (m: string) => void): Problem {
  if (isAppError(e)) {
    return {
      type: `about:blank#${e.code}`,
      title: e.title,
      status: e.status,
      detail: e.message,
      code: e.code,
      ...e.extra,
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
  return new Response(JSON.stringify(p), { status: p.status, headers: { "content-type": "application/problem+json" } });
}

export { AppError };
