import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "./support/app.js";
import { freshSchema } from "./support/postgres.js";

// npm nests a second copy of core under an adapter whose range the top-level copy does not
// satisfy (or under a third-party adapter that lists core as a dependency instead of a peer).
let app: App;
beforeAll(() => {
  app = createApp(["@message-store/core", "@message-store/postgres"]);
  const top = join(app.dir, "node_modules/@message-store/core");
  const nested = join(
    app.dir,
    "node_modules/@message-store/postgres/node_modules/@message-store/core",
  );
  cpSync(top, nested, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(nested, "package.json"), "utf8"));
  writeFileSync(join(nested, "package.json"), JSON.stringify({ ...manifest, version: "0.99.0" }));
});

describe("two copies of core, one nested under the adapter", () => {
  it("initialize finds the adapter, and errors of either copy are instances of the other's classes", async () => {
    app.write(
      "copies.mjs",
      `import * as top from "@message-store/core";
import "@message-store/postgres";
const nested = await import("./node_modules/@message-store/postgres/node_modules/@message-store/core/dist/index.js");
const store = await top.MessageStore.initialize({ storage: "postgres", dsn: process.env.DSN, schema: process.env.SCHEMA });
const fromAdapter = await store.flagMessage("missing").catch((e) => e);
const fromTop = new top.IntegrityError("x");
const nestedManifest = await import("./node_modules/@message-store/postgres/node_modules/@message-store/core/package.json", { with: { type: "json" } });
console.log(JSON.stringify({
  twoCopies: top.NotFoundError !== nested.NotFoundError && nestedManifest.default.version === "0.99.0",
  adapterUsesNested: fromAdapter.constructor === nested.NotFoundError,
  storeIsTop: store instanceof top.MessageStore,
  storeIsNested: store instanceof nested.MessageStore,
  adapterErrorIsTop: fromAdapter instanceof top.NotFoundError && top.isMessageStoreError(fromAdapter),
  adapterErrorIsNested: fromAdapter instanceof nested.NotFoundError && nested.isMessageStoreError(fromAdapter),
  adapterErrorIsNotIntegrity: !(fromAdapter instanceof top.IntegrityError),
  topErrorIsNested: fromTop instanceof nested.IntegrityError && fromTop instanceof nested.MessageStoreError,
}));
await store.close();`,
    );
    const out = JSON.parse(app.node(["copies.mjs"], await freshSchema()));
    expect(out).toEqual({
      twoCopies: true,
      adapterUsesNested: true,
      storeIsTop: true,
      storeIsNested: true,
      adapterErrorIsTop: true,
      adapterErrorIsNested: true,
      adapterErrorIsNotIntegrity: true,
      topErrorIsNested: true,
    });
  });
});
