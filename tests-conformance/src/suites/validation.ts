import type { MessageStoreApi } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { dumpStore } from "../dump.js";
import { expectRejection, expectThrow } from "../expect-error.js";
import { conversation, fullTrace, message, T0, trace } from "../fixtures.js";
import type { Harness } from "../harness.js";

const BAD_PAGE_OPTIONS: unknown[] = [
  { limit: 0 },
  { limit: -1 },
  { limit: 1.5 },
  { limit: "2" },
  { limit: Number.NaN },
  { limit: Number.POSITIVE_INFINITY },
  { limit: 1_000_001 },
  { cursor: 42 },
  { limit: 2, offset: 4 },
  { Limit: 2 },
  null,
  "limit=2",
];

async function seed(store: MessageStoreApi) {
  const c = conversation({ id: "v-conv", userId: "v-user" });
  await store.storeConversation(c);
  const m = await store.storeMessage(message(c, { id: "v-msg", role: "assistant" }));
  await store.storeTurnTrace(trace(m, { id: "v-trace", agentId: "v-agent" }));
  return { c, m };
}

/** Typed rejection of bad arguments that are not models: options, sizes, flags, queries. */
export function validationSuite(h: Harness): void {
  describe("argument validation", () => {
    const rejects = (what: string, action: () => unknown) =>
      expectRejection(action, "VALIDATION", what);

    it("every list rejects bad page options", async () => {
      await seed(h.store);
      for (const o of BAD_PAGE_OPTIONS) {
        const bad = o as any;
        const label = JSON.stringify(o) ?? String(o);
        await rejects(`messages ${label}`, () =>
          h.store.getMessagesByConversationId("v-conv", bad),
        );
        await rejects(`conversations ${label}`, () =>
          h.store.getConversationsByUserId("v-user", bad),
        );
        await rejects(`agent traces ${label}`, () =>
          h.store.getTurnTracesByAgentId("v-agent", bad),
        );
        await rejects(`query ${label}`, () => h.store.queryTurnTraces(bad));
        await rejects(`listConversations ${label}`, () => h.store.listConversations(bad));
      }
    });

    it("listConversations rejects a bad userId filter", async () => {
      for (const userId of ["", "x".repeat(257), 7, null, "\uD800"]) {
        await rejects(`userId ${JSON.stringify(userId)}`, () =>
          h.store.listConversations({ userId } as any),
        );
      }
    });

    it("getImmediateContext rejects an n that is negative, fractional, non-finite or not a number", async () => {
      await seed(h.store);
      for (const n of [
        -1,
        1.5,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        "3",
        null,
        undefined,
        1_000_001,
      ]) {
        await rejects(`n = ${String(n)}`, () => h.store.getImmediateContext("v-conv", n as any));
      }
    });

    it("getImmediateContext rejects bad options and bad compress settings", async () => {
      await seed(h.store);
      const bad = [
        { compress: { maxChars: 0, keepChars: 10 } },
        { compress: { maxChars: 10, keepChars: -1 } },
        { compress: { maxChars: 1.5, keepChars: 1 } },
        { compress: { maxChars: 10, keepChars: 2, extra: true } },
        { compress: "yes" },
        { compress: null },
        { compres: { maxChars: 10, keepChars: 2 } },
        null,
      ];
      for (const o of bad) {
        await rejects(JSON.stringify(o), () => h.store.getImmediateContext("v-conv", 5, o as any));
      }
    });

    it("flagMessage rejects a flag that is not a boolean, and changes nothing", async () => {
      const { m } = await seed(h.store);
      for (const flag of ["yes", 1, 0, null, "false"]) {
        await rejects(`flag ${String(flag)}`, () => h.store.flagMessage("v-msg", flag as any));
      }
      expect(await h.store.getMessage("v-msg")).toEqual(m);
    });

    it("trace windows reject non-timestamps and unknown option keys", async () => {
      await seed(h.store);
      const bad = [
        { since: -1 },
        { until: 1.5 },
        { since: "2025" },
        { until: Number.NaN },
        { from: T0 },
        { since: 2 ** 53 },
      ];
      for (const o of bad) {
        await rejects(`agent ${JSON.stringify(o)}`, () =>
          h.store.getTurnTracesByAgentId("v-agent", o as any),
        );
        await rejects(`query ${JSON.stringify(o)}`, () => h.store.queryTurnTraces(o as any));
      }
    });

    it("queryTurnTraces rejects bad filters", async () => {
      await seed(h.store);
      const bad = [
        { minTotalTokens: -1 },
        { minTotalTokens: 1.5 },
        { hasErrors: "yes" },
        { toolName: "" },
        { model: "" },
        { agentId: "" },
        { conversationId: "x".repeat(257) },
        { userId: 7 },
        { agent: "v-agent" },
        null,
      ];
      for (const q of bad)
        await rejects(JSON.stringify(q), () => h.store.queryTurnTraces(q as any));
    });

    it("summarizeUsage rejects missing or bad fields", async () => {
      await seed(h.store);
      const ok = { since: T0, until: T0 + 1, bucket: "hour" };
      const bad = [
        undefined,
        null,
        {},
        { ...ok, since: undefined },
        { ...ok, until: undefined },
        { ...ok, bucket: "week" },
        { ...ok, bucket: undefined },
        { ...ok, since: -1 },
        { ...ok, until: 1.5 },
        { ...ok, agentId: "" },
        { ...ok, extra: 1 },
      ];
      for (const q of bad)
        await rejects(JSON.stringify(q) ?? "undefined", () => h.store.summarizeUsage(q as any));
    });

    it("searchMessages validates its query first, whatever the capabilities", async () => {
      await seed(h.store);
      const bad = [
        {},
        { embedding: [] },
        { embedding: [Number.NaN] },
        { embedding: [1, Number.POSITIVE_INFINITY] },
        { embedding: ["0.1"] },
        { embedding: [1], limit: 0 },
        { embedding: [1], limit: 1001 },
        { embedding: [1], limit: 1.5 },
        { embedding: [1], userId: "" },
        { embedding: [1], conversation: "v-conv" },
        null,
      ];
      for (const q of bad) await rejects(JSON.stringify(q), () => h.store.searchMessages(q as any));
    });

    it("storeMessages rejects the same id twice in one batch and stores none of it", async () => {
      const { c } = await seed(h.store);
      const scope = { userIds: ["v-user"], messageIds: ["dup", "fresh"] };
      const before = await dumpStore(h.store, scope);
      const batch = [
        message(c, { id: "fresh" }),
        message(c, { id: "dup", originalContent: "one" }),
        message(c, { id: "dup", originalContent: "two" }),
      ];
      await rejects("duplicate ids", () => h.store.storeMessages(batch));
      await rejects("duplicate existing ids", () =>
        h.store.storeMessages([message(c, { id: "v-msg" }), message(c, { id: "v-msg" })]),
      );
      expect(await dumpStore(h.store, scope)).toEqual(before);
    });

    it("storeMessages needs an array and storeMessage a single message", async () => {
      const { c } = await seed(h.store);
      const m = message(c, { id: "shape" });
      await rejects("object to storeMessages", () => h.store.storeMessages(m as any));
      await rejects("array to storeMessage", () => h.store.storeMessage([m] as any));
      await rejects("null to storeMessages", () => h.store.storeMessages(null as any));
      await rejects("array with null", () => h.store.storeMessages([m, null] as any));
      expect(await h.store.getMessage("shape")).toBeNull();
    });

    it("unknown keys are rejected at every nesting level", async () => {
      const { c, m } = await seed(h.store);
      const before = await dumpStore(h.store, { userIds: ["v-user"], messageIds: ["nested"] });
      const bad: [string, () => Promise<unknown>][] = [
        [
          "entity",
          () =>
            h.store.storeMessage(
              message(c, { id: "nested", entities: [{ name: "e", kind: "x" } as any] }),
            ),
        ],
        [
          "tool call",
          () =>
            h.store.storeMessage(
              message(c, {
                id: "nested",
                toolCalls: [{ toolCallId: "1", toolName: "t", args: {} } as any],
              }),
            ),
        ],
        [
          "llm call",
          () =>
            h.store.storeTurnTrace(
              trace(m, { llmCalls: [{ ...fullTrace(m).llmCalls![0]!, tokens: 1 } as any] }),
            ),
        ],
        [
          "tool trace",
          () =>
            h.store.storeTurnTrace(trace(m, { toolTraces: [{ toolName: "t", result: 1 } as any] })),
        ],
        [
          "script attempt",
          () =>
            h.store.storeTurnTrace(
              trace(m, {
                toolTraces: [
                  {
                    toolName: "t",
                    generationAttempts: [{ attempt: 1, script: "", code: "" }],
                  } as any,
                ],
              }),
            ),
        ],
        ["trace", () => h.store.storeTurnTrace({ ...trace(m), sessionId: "s" } as any)],
      ];
      for (const [what, action] of bad) await rejects(what, action);
      expect(await dumpStore(h.store, { userIds: ["v-user"], messageIds: ["nested"] })).toEqual(
        before,
      );
    });

    it("a ValidationError lists the failing field in its issues", async () => {
      const { c } = await seed(h.store);
      const error = await rejects("sentimentScore", () =>
        h.store.storeMessage(message(c, { sentimentScore: 1.5 })),
      );
      const issues = (error as any).issues as { path: (string | number)[]; message: string }[];
      expect(issues.some((i) => i.path.includes("sentimentScore"))).toBe(true);
      expect(issues.every((i) => typeof i.message === "string")).toBe(true);
    });

    it("forUser with a bad user id throws a ValidationError", async () => {
      for (const id of ["", "x".repeat(257), { $ne: null }, 42, null, undefined, "\uD800"]) {
        expectThrow(
          () => h.store.forUser(id as any),
          "VALIDATION",
          `forUser(${JSON.stringify(id)})`,
        );
      }
    });
  });
}
