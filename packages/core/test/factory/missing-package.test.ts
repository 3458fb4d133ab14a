import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertFreshBuild, DIST_ENTRY, runNode } from "../support/run-node.js";

// The built core is copied into an empty folder with only its own dependencies, so no adapter
// package can be found, whatever the workspace hoists. This is what an application that forgot
// `npm install @message-store/postgres` sees.
let dir: string;
beforeAll(() => {
  assertFreshBuild();
  dir = mkdtempSync(join(tmpdir(), "message-store-core-"));
  const require = createRequire(DIST_ENTRY);
  for (const dep of ["zod", "uuid"]) {
    const pkgDir = dirname(realpathSync(require.resolve(`${dep}/package.json`)));
    mkdirSync(join(dir, "node_modules"), { recursive: true });
    symlinkSync(pkgDir, join(dir, "node_modules", dep), "dir");
  }
  cpSync(dirname(DIST_ENTRY), dir, { recursive: true });
  cpSync(join(dirname(DIST_ENTRY), "..", "package.json"), join(dir, "package.json"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("MessageStore.initialize with the adapter package not installed", () => {
  it.each([
    [
      "postgres",
      { storage: "postgres", dsn: "postgres://app:hunter2@db/x" },
      "@message-store/postgres",
    ],
    ["json", { storage: "json", path: ":memory:" }, "@message-store/json"],
    [
      "mongodb",
      { storage: "mongodb", uri: "mongodb://app:hunter2@h", db: "d" },
      "@message-store/mongodb",
    ],
  ])("%s → ConfigurationError naming the package, no password", (_, config, packageName) => {
    const run = runNode(
      `import { MessageStore, isMessageStoreError } from ${JSON.stringify(join(dir, "index.js"))};
       try {
         await MessageStore.initialize(${JSON.stringify(config)});
         console.log(JSON.stringify({ opened: true }));
       } catch (e) {
         console.log(JSON.stringify({
           branded: isMessageStoreError(e), name: e.name, code: e.code, message: e.message,
           cause: String(e.cause?.message) + String(e.cause?.stack),
         }));
       }`,
    );
    expect(run.stderr).toBe("");
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      branded: true,
      name: "ConfigurationError",
      code: "CONFIGURATION",
    });
    expect(result.message).toContain(`npm install ${packageName}`);
    expect(result.message).toContain(`import "${packageName}"`);
    expect(result.message + result.cause).not.toContain("hunter2");
  });
});
