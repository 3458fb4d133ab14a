import { describe, expect, it } from "vitest";
import { matchesTraceFilter } from "../../src/adapter.js";
import { trace } from "../support/builders.js";

const t = trace({
  agentId: "a",
  conversationId: "c",
  userId: "u",
  timestamp: 100,
  totalTokens: 50,
  llmCalls: [
    { purpose: "agent_loop", model: "gpt-4o", promptTokens: 1, completionTokens: 1, latencyMs: 1 },
  ],
  toolTraces: [{ toolName: "sql" }, { toolName: "web" }],
  errors: [],
});
const failed = { ...t, errors: [{ message: "x" }] };

describe("matchesTraceFilter", () => {
  it("matches everything with an empty filter", () => {
    expect(matchesTraceFilter(t, {})).toBe(true);
  });

  it.each<[Parameters<typeof matchesTraceFilter>[1], boolean]>([
    [{ agentId: "a" }, true],
    [{ agentId: "b" }, false],
    [{ conversationId: "c" }, true],
    [{ conversationId: "d" }, false],
    [{ userId: "u" }, true],
    [{ userId: "v" }, false],
    [{ since: 100 }, true],
    [{ since: 101 }, false],
    [{ until: 101 }, true],
    [{ until: 100 }, false],
    [{ minTotalTokens: 50 }, true],
    [{ minTotalTokens: 51 }, false],
    [{ toolName: "web" }, true],
    [{ toolName: "ssh" }, false],
    [{ model: "gpt-4o" }, true],
    [{ model: "gpt-4" }, false],
    [{ hasErrors: false }, true],
    [{ hasErrors: true }, false],
    [{ agentId: "a", toolName: "sql", model: "gpt-4o", since: 0, until: 1000 }, true],
    [{ agentId: "a", toolName: "sql", model: "other" }, false],
  ])("%j → %s", (filter, expected) => {
    expect(matchesTraceFilter(t, filter)).toBe(expected);
  });

  it("hasErrors: true matches a trace with errors; null userId never matches a userId", () => {
    expect(matchesTraceFilter(failed, { hasErrors: true })).toBe(true);
    expect(matchesTraceFilter(failed, { hasErrors: false })).toBe(false);
    expect(matchesTraceFilter({ ...t, userId: null }, { userId: "u" })).toBe(false);
  });
});
