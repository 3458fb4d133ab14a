import { LOOKUP_MESSAGE_TOOL, lookupMessageParameters, ValidationError } from "@message-store/core";
import { useBridgeStore } from "@message-store/test-servers/bridge";
import { generateText, stepCountIs } from "ai";
import { describe, expect, it } from "vitest";
import { loadModelMessages, lookupMessageTool } from "../src/index.js";
import { generatingModel } from "./support/mock-model.js";

const LONG = `${"head ".repeat(60)}${"middle ".repeat(200)}${"tail ".repeat(60)}`;

/** The tool results the model was sent in its later calls. */
function toolResultsSent(calls: { prompt: { role: string; content: unknown }[] }[]): unknown[] {
  return calls.flatMap((c) =>
    c.prompt
      .filter((m) => m.role === "tool")
      .flatMap((m) => m.content as { type: string; output: { value: unknown } }[])
      .filter((part) => part.type === "tool-result")
      .map((part) => part.output.value),
  );
}

describe("lookupMessageTool in a generateText loop (JSON store)", () => {
  const ctx = useBridgeStore("json");

  it("the model reads a compressed message's full text by the id in the hint, and nothing of another user or conversation", async () => {
    const { store } = ctx;
    for (const [c, user] of [
      ["c1", "u1"],
      ["c2", "u1"],
      ["c3", "u2"],
    ] as const) {
      await store.storeConversation({ id: c, userId: user, createdAt: 1 });
      await store.storeMessage({
        id: `${c}-long`,
        conversationId: c,
        userId: user,
        role: "assistant",
        originalContent: LONG,
        timestamp: 2,
      });
    }
    const history = await loadModelMessages(store, "c1", { limit: 10, compress: true });
    const shown = JSON.stringify(history);
    expect(shown).toContain(`${LOOKUP_MESSAGE_TOOL} tool with id \\"c1-long\\"`);
    expect(shown).not.toContain("middle middle middle middle middle middle middle middle");

    const model = generatingModel([
      {
        toolCalls: [
          { id: "k1", name: LOOKUP_MESSAGE_TOOL, input: { id: "c1-long" } },
          { id: "k2", name: LOOKUP_MESSAGE_TOOL, input: { id: "c2-long" } },
          { id: "k3", name: LOOKUP_MESSAGE_TOOL, input: { id: "c3-long" } },
        ],
        usage: [10, 5],
      },
      { text: "The middle part says: middle.", usage: [20, 5] },
    ]);
    const result = await generateText({
      model,
      messages: [...history, { role: "user", content: "What did you say in full?" }],
      tools: {
        [LOOKUP_MESSAGE_TOOL]: lookupMessageTool(store, { userId: "u1", conversationId: "c1" }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe("The middle part says: middle.");
    expect(model.doGenerateCalls).toHaveLength(2);
    const [own, otherConversation, otherUser] = toolResultsSent(model.doGenerateCalls) as {
      found: boolean;
      content?: string;
    }[];
    expect(own).toMatchObject({ found: true, id: "c1-long", role: "assistant", content: LONG });
    expect(otherConversation).toMatchObject({ found: false, id: "c2-long" });
    expect(otherUser).toMatchObject({ found: false, id: "c3-long" });
    expect(JSON.stringify([otherConversation, otherUser])).not.toContain("middle");
  });

  it("takes core's parameters as its input schema, and refuses an invalid scope at creation", async () => {
    const t = lookupMessageTool(ctx.store, { userId: "u1" });
    const schema = (t.inputSchema as { jsonSchema: unknown }).jsonSchema;
    expect(await Promise.resolve(schema)).toEqual(lookupMessageParameters);
    expect(() => lookupMessageTool(ctx.store, { userId: "" })).toThrow(ValidationError);
  });
});
