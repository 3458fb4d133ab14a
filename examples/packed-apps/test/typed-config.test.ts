import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "./support/app.js";

const TSC = resolve(import.meta.dirname, "../node_modules/typescript/bin/tsc");
let app: App;

beforeAll(() => {
  app = createApp(["@message-store/core", "@message-store/postgres", "@message-store/json"], {
    "@types/node": "^20.19.0",
  });
  // A third-party adapter, as its author would publish it: it augments the same interface.
  app.write(
    "node_modules/acme-message-store/package.json",
    JSON.stringify({ name: "acme-message-store", version: "1.0.0", types: "index.d.ts" }),
  );
  app.write(
    "node_modules/acme-message-store/index.d.ts",
    `export interface AcmeStoreConfig { url: string; ttl_seconds?: number }
declare module "@message-store/core" {
  interface StorageConfigMap { acme: AcmeStoreConfig }
}
`,
  );
});

const OK = [
  [
    "postgres",
    `MessageStore.initialize({ storage: "postgres", dsn: "postgres://h/db", pool_max: 5 })`,
  ],
  ["json", `MessageStore.initialize({ storage: "json", path: "data/app.json" })`],
  ["third-party", `MessageStore.initialize({ storage: "acme", url: "acme://h", ttl_seconds: 60 })`],
] as const;
const BAD = [
  [
    "a misspelt key",
    `MessageStore.initialize({ storage: "postgres", dsn: "x", poolMax: 5 })`,
    "TS2561",
    "poolMax",
  ],
  [
    "an unknown storage",
    `MessageStore.initialize({ storage: "postgress", dsn: "x" })`,
    "TS2820",
    "postgress",
  ],
  ["a wrong type", `MessageStore.initialize({ storage: "postgres", dsn: 42 })`, "TS2322", "number"],
  ["a missing required key", `MessageStore.initialize({ storage: "json" })`, "TS2345", "path"],
  [
    "a third-party key's wrong type",
    `MessageStore.initialize({ storage: "acme", url: 1 })`,
    "TS2322",
    "number",
  ],
  [
    "a third-party misspelt key",
    `MessageStore.initialize({ storage: "acme", url: "u", ttl: 5 })`,
    "TS2353",
    "ttl",
  ],
] as const;

/** Writes one application file per case and type-checks them all in one `tsc --strict` run. */
function typecheckAll(): Map<string, string> {
  const files = [
    ...OK.map(([name, code]) => [`ok-${name}`, code]),
    ...BAD.map(([, code, errorCode, mention]) => [`bad-${errorCode}-${mention}`, code]),
  ];
  for (const [name, code] of files) {
    app.write(
      `src/${name}.ts`,
      `import { MessageStore } from "@message-store/core";
import "@message-store/postgres";
import "@message-store/json";
import "acme-message-store";
export const open = () => ${code};
`,
    );
  }
  const result = app.run(process.execPath, [
    TSC,
    "--strict",
    "--noEmit",
    "--module",
    "nodenext",
    "--moduleResolution",
    "nodenext",
    "--target",
    "es2022",
    "--types",
    "node",
    ...files.map(([name]) => join(app.dir, `src/${name}.ts`)),
  ]);
  // tsc prints `src/<file>.ts(line,col): error TSxxxx: …`, with continuation lines indented.
  const byFile = new Map<string, string>(files.map(([name]) => [name!, ""]));
  let current: string | null = null;
  for (const line of result.output.split("\n")) {
    const match = /src\/([^/]+)\.ts\(\d+,\d+\): error/.exec(line);
    if (match) current = match[1]!;
    else if (!line.startsWith(" ")) current = null;
    if (current !== null) byFile.set(current, `${byFile.get(current) ?? ""}${line}\n`);
  }
  return byFile;
}

let errors: Map<string, string>;
beforeAll(() => {
  errors = typecheckAll();
});

describe("MessageStore.initialize's config is typed by the imported adapters", () => {
  it.each(OK)("accepts a correct %s config", (name) => {
    expect(errors.get(`ok-${name}`)).toBe("");
  });

  it.each(BAD)("rejects %s at compile time", (_, __, errorCode, mention) => {
    const output = errors.get(`bad-${errorCode}-${mention}`) ?? "";
    expect(output).toContain(errorCode);
    expect(output).toContain(mention);
  });
});
