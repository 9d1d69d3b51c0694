import { describe, expect, it } from "vitest";
import { needsFreshPreview, PreviewFlow } from "./preview-flow.svelte";

const problem = (code: string) =>
  Object.assign(new Error(code), { graphQLErrors: [{ message: code, extensions: { code } }] });
const deferred = <T>() => {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
};

describe("needsFreshPreview", () => {
  it("tells the codes that need a fresh preview", () => {
    expect(needsFreshPreview("snapshot_stale")).toBe(true);
    expect(needsFreshPreview("assembly_changed_files")).toBe(true);
    expect(needsFreshPreview("confirmation_invalid")).toBe(true);
    expect(needsFreshPreview("download_active")).toBe(false);
    expect(needsFreshPreview(null)).toBe(false);
  });
});

describe("PreviewFlow", () => {
  it("previews, confirms with the preview, and reports the result", async () => {
    const done: string[] = [];
    const flow = new PreviewFlow({
      preview: async () => ({ token: "t1" }),
      confirm: async (p) => `used ${p.token}`,
      ondone: (r) => done.push(r),
    });
    expect(flow.step.name).toBe("idle");
    await flow.load();
    expect(flow.step).toEqual({ name: "review", preview: { token: "t1" } });
    await flow.confirm();
    expect(flow.step).toEqual({ name: "done", result: "used t1" });
    expect(done).toEqual(["used t1"]);
  });

  it("a stale confirm keeps its preview beside the error and asks for a fresh one; a plain refusal may be confirmed again", async () => {
    let code = "snapshot_stale";
    let calls = 0;
    const flow = new PreviewFlow({
      preview: async () => "p",
      confirm: async () => {
        calls++;
        throw problem(code);
      },
    });
    await flow.load();
    await flow.confirm();
    expect(flow.step).toMatchObject({ name: "failed", preview: "p", fresh: true });
    await flow.confirm(); // a fresh preview is needed first
    expect(calls).toBe(1);
    code = "download_active";
    await flow.load();
    await flow.confirm();
    expect(flow.step).toMatchObject({ name: "failed", preview: "p", fresh: false });
    await flow.confirm();
    expect(calls).toBe(3);
  });

  it("a failed preview has no preview to confirm", async () => {
    const flow = new PreviewFlow({
      preview: async () => {
        throw problem("not_found");
      },
      confirm: async () => "x",
    });
    await flow.load();
    expect(flow.step).toMatchObject({ name: "failed", preview: null, fresh: false });
    expect(flow.preview).toBeNull();
  });

  it("answers of an older request never overwrite a newer one, nor a reset", async () => {
    const first = deferred<string>();
    const answers = [first.promise, Promise.resolve("second")];
    const flow = new PreviewFlow({ preview: () => answers.shift()!, confirm: async () => "x" });
    const late = flow.load();
    await flow.load();
    first.resolve("first");
    await late;
    expect(flow.step).toEqual({ name: "review", preview: "second" });
    const slow = deferred<string>();
    const again = new PreviewFlow({ preview: () => slow.promise, confirm: async () => "x" });
    const pending = again.load();
    again.reset();
    slow.resolve("late");
    await pending;
    expect(again.step).toEqual({ name: "idle" });
  });
});
