import { describe, expect, it } from "vitest";
import { createApp } from "./support/app.js";

describe("the packed CLI", () => {
  it("installs its bin, which runs the built command", () => {
    const app = createApp([
      "@message-store/core",
      "@message-store/json",
      "@message-store/otel",
      "@message-store/cli",
    ]);
    const version = app.run("node_modules/.bin/message-store", ["--version"]);
    expect(version).toEqual({ status: 0, output: "0.0.0\n" });
    const stats = app.run("node_modules/.bin/message-store", ["stats", "--store", "json::memory:"]);
    expect(stats.output).toContain("conversations     0 (0 users)");
    expect(stats.status).toBe(0);
  });
});
