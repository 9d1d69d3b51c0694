import { describe, expect, it } from "vitest";
import { problemField, retentionSentence, seriesFolder } from "./recycle";

describe("recycle bin helpers", () => {
  it("reads a field the service sent with an error", () => {
    const graphql = {
      graphQLErrors: [{ message: "taken", extensions: { code: "restore_target_taken", path: "A/A v01.cbz" } }],
    };
    expect(problemField(graphql, "path")).toBe("A/A v01.cbz");
    expect(problemField({ code: "restore_target_taken", body: { path: "B/b.cbz" } }, "path")).toBe("B/b.cbz");
    expect(problemField({ graphQLErrors: [] }, "path")).toBeNull();
    expect(problemField(new Error("x"), "path")).toBeNull();
    expect(problemField(null, "path")).toBeNull();
  });

  it("finds the series folder of a path", () => {
    expect(seriesFolder("Title/Title v01.cbz")).toBe("Title");
    expect(seriesFolder("loose.cbz")).toBeNull();
  });

  it("words the retention", () => {
    expect(retentionSentence(30)).toContain("for 30 days");
    expect(retentionSentence(1)).toContain("for 1 day ");
  });
});
