import { expect } from "vitest";

/** The JSON body of `res`, after checking its status (the body is shown when the status differs). */
export async function expectJson<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}
