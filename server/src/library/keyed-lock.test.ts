import { describe, expect, it } from "vitest";
import { createKeyedLock } from "./keyed-lock.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("createKeyedLock", () => {
  it("runs holders of one key one after the other, in arrival order", async () => {
    const lock = createKeyedLock();
    const log: string[] = [];
    const job = (name: string) =>
      lock.run(["file:1"], async () => {
        log.push(`${name} in`);
        await tick();
        log.push(`${name} out`);
      });
    await Promise.all([job("a"), job("b"), job("c")]);
    expect(log).toEqual(["a in", "a out", "b in", "b out", "c in", "c out"]);
    expect(lock.size).toBe(0);
  });

  it("lets different keys run side by side", async () => {
    const lock = createKeyedLock();
    const log: string[] = [];
    const job = (key: string) =>
      lock.run([key], async () => {
        log.push(`${key} in`);
        await tick();
        log.push(`${key} out`);
      });
    await Promise.all([job("file:1"), job("file:2")]);
    expect(log).toEqual(["file:1 in", "file:2 in", "file:1 out", "file:2 out"]);
  });

  it("takes several keys without deadlock whatever order callers name them in", async () => {
    const lock = createKeyedLock();
    let inside = 0;
    let most = 0;
    const job = (keys: string[]) =>
      lock.run(keys, async () => {
        inside += 1;
        most = Math.max(most, inside);
        await tick();
        inside -= 1;
      });
    await Promise.all([job(["a", "b"]), job(["b", "a"]), job(["b", "c", "a"]), job(["a", "a"])]);
    expect(most).toBe(1);
    expect(lock.size).toBe(0);
  });

  it("releases the keys when the holder throws, and passes the error on", async () => {
    const lock = createKeyedLock();
    await expect(lock.run(["k"], () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(lock.run(["k"], () => Promise.resolve(42))).resolves.toBe(42);
    expect(lock.size).toBe(0);
  });
});
