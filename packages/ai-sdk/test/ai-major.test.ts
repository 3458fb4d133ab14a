import * as ai from "ai";
import * as aiTest from "ai/test";
import { expect, it } from "vitest";
import { AI_MAJOR } from "./support/ai-major.js";

it("runs against the AI SDK major its project names", () => {
  const mocks = Object.keys(aiTest).filter((k) => /^MockLanguageModelV\d$/.test(k));
  expect(mocks.sort().at(-1)).toBe(`MockLanguageModelV${AI_MAJOR - 3}`);
  // convertToModelMessages (used by the bridge) became async in ai 6
  const converted: unknown = ai.convertToModelMessages([]);
  expect(converted instanceof Promise).toBe(AI_MAJOR >= 6);
});
