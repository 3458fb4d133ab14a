import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { expect, it } from "vitest";

// Core and this adapter bundled for Cloudflare Workers (no Node built-ins: no `nodejs_compat`)
// and run in workerd. The SQLite libraries are left out of the bundle, as they must be for a
// Worker: they load only when a file is opened, which a Worker cannot do.
it("core and the adapter bundle with esbuild and run in workerd", async () => {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL("./worker/entry.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    external: ["node:*", "better-sqlite3", "@libsql/client"],
    write: false,
    logLevel: "silent",
  });
  const script = bundle.outputFiles[0]!.text;
  // A static import of a Node module would fail the Worker at load.
  expect(script).not.toMatch(/^import .* from "node:/m);
  // The module listed as is: Miniflare resolves nothing, and workerd fails a dynamic import
  // of a module it lacks only if it runs.
  const mf = new Miniflare({
    modules: [{ type: "ESModule", path: "worker.mjs", contents: script }],
    compatibilityDate: "2025-09-01",
  });
  try {
    const response = await mf.dispatchFetch("http://localhost/");
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(body).toMatchObject({
      pages: [["m0", "m1"], ["m2"]],
      hits: ["c1"],
      defaultSynchronous: "FULL",
    });
    // Opening a file needs a SQLite library, which a Worker has not: a typed error, no crash.
    expect(body.sqlite).toMatch(/^\w*Error: \[message-store\]/);
  } finally {
    await mf.dispose();
  }
}, 120_000);
