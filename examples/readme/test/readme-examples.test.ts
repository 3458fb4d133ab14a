import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const readme = readFileSync(join(here, "../../../README.md"), "utf8");
const section = readme.slice(readme.indexOf("## Capabilities"), readme.indexOf("## Development"));
const blocks = [...section.matchAll(/### (.+)\n[\s\S]*?```ts\n([\s\S]*?)```/g)].map((m) => ({
  title: m[1]!.trim(),
  code: m[2]!,
}));
const workDir = join(here, "../.tmp");
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

// The first import of the Vercel AI SDK and the store packages costs seconds on a loaded machine:
// it is paid here, not inside the first example that imports them.
beforeAll(async () => {
  await Promise.all([import("ai"), import("@message-store/core"), import("@message-store/json")]);
});

/**
 * Turns a README block into a module: its imports on top, its body inside a run function. What
 * the block prints with `console.log` is collected in `printed` (checked, not written to the
 * test log).
 */
function toModule(code: string): string {
  const lines = code.split("\n");
  const imports = lines.filter((l) => l.startsWith("import "));
  const body = lines.filter((l) => !l.startsWith("import ")).join("\n");
  return [
    'import assert from "node:assert/strict";',
    'import { MessageStore } from "@message-store/core";',
    `import { seed } from ${JSON.stringify(join(here, "seed.js"))};`,
    ...imports,
    "export const printed: unknown[][] = [];",
    "const console = { ...globalThis.console, log: (...args: unknown[]) => void printed.push(args) };",
    "export default async function run(): Promise<void> {",
    '  const store = await MessageStore.initialize({ storage: "json", path: ":memory:" });',
    "  await seed(store);",
    "  try {",
    body,
    "  } finally {",
    "    await store.close();",
    "  }",
    "}",
  ].join("\n");
}

describe("README capability examples", () => {
  it("finds one example per capability", () => {
    expect(blocks.map((b) => b.title)).toEqual([
      "Replay into model SDK formats",
      "Compression on load",
      "The lookup tool",
      "Session API",
      "Embedding worker (where `store.capabilities.embeddingQueue`)",
      "Soft delete (where `store.capabilities.softDelete`)",
      "Text search (where `store.capabilities.textSearch`)",
      "Trace analytics",
      "Erasure",
      "Semantic search (where `store.capabilities.semanticSearch`)",
      "Scoped views",
      "Checkpoints (where `store.capabilities.checkpoints`)",
    ]);
  });

  it.each(blocks)("$title runs as written", async ({ title, code }) => {
    mkdirSync(workDir, { recursive: true });
    const file = join(workDir, `${title.replace(/\W+/g, "-").toLowerCase()}.ts`);
    writeFileSync(file, toModule(code));
    const module = (await import(file)) as { default: () => Promise<void>; printed: unknown[][] };
    await module.default();
    if (code.includes("console.log(")) expect(module.printed.length).toBeGreaterThan(0);
  });
});
