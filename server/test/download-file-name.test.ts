/** The library name of a downloaded release reads back as the same release, however long the title. */
import { describe, expect, it } from "vitest";
import { parseFileName } from "../src/domain/filename.ts";
import { downloadFileName } from "../src/services/acquisition/download-pipeline-job.ts";

const row = (chapter: string, part: number | null = null) => ({
  kind: "chapter" as const,
  volume: null,
  chapter,
  part,
  scanlator: "Night Owls",
});

describe("downloadFileName", () => {
  it("keeps the chapter, the part and the group when the title is too long for the name", () => {
    const title = "The Extraordinarily Long Light Novel Style Title ".repeat(8);
    const one = downloadFileName(title, row("1", 2));
    const two = downloadFileName(title, row("2", 2));
    expect(one).not.toBe(two);
    expect(one).toMatch(/ - c001 \(part 2\) \[Night Owls\]\.cbz$/);
    expect(new TextEncoder().encode(one).length).toBeLessThanOrEqual(184);
    expect(parseFileName(two)).toMatchObject({ chapter: "2", part: 2 });
  });

  it("is the plain name when it fits", () => {
    expect(downloadFileName("Salt Road", row("10.5"))).toBe("Salt Road - c010.5 [Night Owls].cbz");
  });
});
