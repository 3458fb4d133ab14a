import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { compileExamples, readmeExamples } from "@message-store/test-servers/bridge";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const require = createRequire(join(ROOT, "package.json"));
const EXAMPLES = readmeExamples(join(ROOT, "README.md"));
/** Examples of ai 7's telemetry integrations (fenced `ts ai7`): compiled on ai 7 only. */
const AI7_EXAMPLES = [
  ...readFileSync(join(ROOT, "README.md"), "utf8").matchAll(/```ts ai7\n([\s\S]*?)```/g),
].map((m) => m[1]!);

/** The `ai` package of each major in the peer range: the devDependency and its aliases. */
const MAJORS = { 7: "ai", 6: "ai-v6", 5: "ai-v5" } as const;

/** What the examples take from outside this package: a provider package, not installed here. */
const PRELUDE = `declare module "@ai-sdk/openai" {
  import type { LanguageModel } from "ai";
  export function openai(modelId: string): LanguageModel;
}
`;

describe("the README's examples", () => {
  it("are there to compile", () => {
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(4);
  });

  it.each(Object.entries(MAJORS))("compile on ai %s", { timeout: 120_000 }, (_major, ai) => {
    const types = join(dirname(require.resolve(`${ai}/package.json`)), "dist/index.d.ts");
    const errors = compileExamples(EXAMPLES, {
      root: ROOT,
      prelude: PRELUDE,
      // `ai` as that major; this package as users get it, its build (`pnpm test` makes it first).
      paths: { ai: [types], "@message-store/ai-sdk": [join(ROOT, "dist/index.d.ts")] },
    });
    expect(errors).toEqual([]);
  });

  it("of ai 7's telemetry are there and compile on ai 7", { timeout: 120_000 }, () => {
    expect(AI7_EXAMPLES.length).toBe(2);
    const types = join(dirname(require.resolve("ai/package.json")), "dist/index.d.ts");
    const errors = compileExamples(AI7_EXAMPLES, {
      root: ROOT,
      prelude: PRELUDE,
      paths: { ai: [types], "@message-store/ai-sdk": [join(ROOT, "dist/index.d.ts")] },
    });
    expect(errors).toEqual([]);
  });
});
