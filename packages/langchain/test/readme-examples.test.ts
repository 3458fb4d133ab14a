import { join } from "node:path";
import { compileExamples, readmeExamples } from "@message-store/test-servers/bridge";
import { expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");

/** What the example takes from outside this package: a provider package, not installed here. */
const PRELUDE = `declare module "@langchain/openai" {
  import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
  export const ChatOpenAI: new (fields: { model: string }) => BaseChatModel;
}
`;

it("the README's example compiles against the package as users get it", {
  timeout: 120_000,
}, () => {
  const examples = readmeExamples(join(ROOT, "README.md"));
  expect(examples.length).toBeGreaterThanOrEqual(1);
  // This package as its build (`pnpm test` makes it first).
  const paths = { "@message-store/langchain": [join(ROOT, "dist/index.d.ts")] };
  expect(compileExamples(examples, { root: ROOT, paths, prelude: PRELUDE })).toEqual([]);
});
