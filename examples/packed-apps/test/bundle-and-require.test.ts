import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "./support/app.js";
import { freshSchema } from "./support/postgres.js";

let app: App;
beforeAll(() => {
  app = createApp(["@message-store/core", "@message-store/postgres"]);
});

/** The banner the root and PostgreSQL READMEs document for an ES module bundle. */
const ESM_REQUIRE_BANNER =
  'import { createRequire as topLevelCreateRequire } from "node:module"; const require = topLevelCreateRequire(import.meta.url);';

/** Stores a conversation and a message, reads the context window back and prints it. */
const program = (importLines: string) => `${importLines}
async function main() {
  const store = await MessageStore.initialize({
    storage: "postgres",
    dsn: process.env.DSN,
    schema: process.env.SCHEMA,
  });
  const c = await store.storeConversation({ id: newId(), userId: "u1" });
  await store.storeMessage({
    id: newId(), conversationId: c.id, userId: "u1", role: "user",
    originalContent: "hello from " + process.env.KIND, timestamp: 1,
  });
  const window = await store.getImmediateContext(c.id, 5);
  const missing = await store.flagMessage("no-such-message").catch((e) => e);
  console.log(JSON.stringify({
    texts: window.map((m) => m.originalContent),
    notFound: missing instanceof NotFoundError && missing.code === "NOT_FOUND",
  }));
  await store.close();
}
main().catch((e) => { console.error(e); process.exit(1); });
`;

describe("a fresh application using the packed core and PostgreSQL adapter", () => {
  it("works bundled by esbuild (--bundle --platform=node), run away from node_modules", async () => {
    app.write(
      "src/app.ts",
      program(`import { MessageStore, NotFoundError, newId } from "@message-store/core";
import "@message-store/postgres";`),
    );
    const outDir = mkdtempSync(join(tmpdir(), "message-store-bundle-"));
    const outfile = join(outDir, "app.cjs");
    await build({
      entryPoints: [join(app.dir, "src/app.ts")],
      absWorkingDir: app.dir,
      bundle: true,
      platform: "node",
      outfile,
      // pg's optional native binding, which every esbuild user of pg leaves out.
      external: ["pg-native"],
      logLevel: "error",
    });
    const out = app.node([outfile], { ...(await freshSchema()), KIND: "a bundle" });
    expect(JSON.parse(out)).toEqual({ texts: ["hello from a bundle"], notFound: true });
  });

  it("works bundled by esbuild as ESM, with the createRequire banner the READMEs give", async () => {
    app.write(
      "src/app-esm.ts",
      program(`import { MessageStore, NotFoundError, newId } from "@message-store/core";
import "@message-store/postgres";`),
    );
    const outDir = mkdtempSync(join(tmpdir(), "message-store-bundle-esm-"));
    const outfile = join(outDir, "app.mjs");
    await build({
      entryPoints: [join(app.dir, "src/app-esm.ts")],
      absWorkingDir: app.dir,
      bundle: true,
      platform: "node",
      format: "esm",
      outfile,
      external: ["pg-native"],
      // pg is CommonJS and requires Node's modules: an ES module bundle needs a require.
      banner: { js: ESM_REQUIRE_BANNER },
      logLevel: "error",
    });
    const out = app.node([outfile], { ...(await freshSchema()), KIND: "an ESM bundle" });
    expect(JSON.parse(out)).toEqual({ texts: ["hello from an ESM bundle"], notFound: true });
  });

  it("works from a CommonJS file with require()", async () => {
    app.write(
      "app.cjs",
      program(`const { MessageStore, NotFoundError, newId } = require("@message-store/core");
require("@message-store/postgres");`),
    );
    const out = app.node(["app.cjs"], { ...(await freshSchema()), KIND: "require" });
    expect(JSON.parse(out)).toEqual({ texts: ["hello from require"], notFound: true });
  });

  it("loads a built-in adapter that was not imported, in plain Node", async () => {
    app.write(
      "plain.mjs",
      program(`import { MessageStore, NotFoundError, newId } from "@message-store/core";`),
    );
    const out = app.node(["plain.mjs"], { ...(await freshSchema()), KIND: "plain node" });
    expect(JSON.parse(out)).toEqual({ texts: ["hello from plain node"], notFound: true });
  });
});
