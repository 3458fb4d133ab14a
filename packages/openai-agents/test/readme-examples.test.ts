import { join } from "node:path";
import { compileExamples, readmeExamples } from "@message-store/test-servers/bridge";
import { expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");

it("the README's examples compile against the package as users get it", {
  timeout: 120_000,
}, () => {
  const examples = readmeExamples(join(ROOT, "README.md"));
  expect(examples.length).toBeGreaterThanOrEqual(2);
  // This package as its build (`pnpm test` makes it first).
  const paths = { "@message-store/openai-agents": [join(ROOT, "dist/index.d.ts")] };
  expect(compileExamples(examples, { root: ROOT, paths })).toEqual([]);
});
