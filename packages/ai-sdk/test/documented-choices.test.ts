import { newId } from "@message-store/core";
import { useBridgeStore } from "@message-store/test-servers/bridge";
import { type ModelMessage, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { createChatStore, loadModelMessages, saveModelMessages } from "../src/index.js";
import { AI_MAJOR, BACKENDS } from "./support/ai-major.js";
import { scriptedModel } from "./support/mock-model.js";

/** A turn with a tool call, its result and the answer, and a later question. */
const CONVERSATION: ModelMessage[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Weather in Oslo?" },
  {
    role: "assistant",
    content: [
      {
        type: "tool-call",
        toolCallId: "ws",
        toolName: "web_search",
        input: {},
        providerExecuted: true,
      },
      {
        type: "tool-result",
        toolCallId: "ws",
        toolName: "web_search",
        output: { type: "json", value: { hits: 1 } },
      },
      { type: "tool-call", toolCallId: "c1", toolName: "weather", input: { city: "Oslo" } },
    ],
  },
  {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: "c1",
        toolName: "weather",
        output: { type: "json", value: { sky: "snow" } },
      },
    ],
  },
  { role: "assistant", content: `Snow. ${"x".repeat(1200)} End.` },
];

describe.each(BACKENDS)(
  "where the bridge differs from an in-memory list, by choice (%s)",
  (backend) => {
    const ctx = useBridgeStore(backend);
    const save = async () => {
      const conversationId = newId();
      await saveModelMessages(ctx.store, { conversationId, userId: "u1", messages: CONVERSATION });
      return conversationId;
    };

    it("stored system messages are left out unless asked for, so every ai major takes the result", async () => {
      const id = await save();
      const loaded = await loadModelMessages(ctx.store, id, { limit: 10 });
      expect(loaded.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
      const kept = await loadModelMessages(ctx.store, id, { limit: 10, systemMessages: "keep" });
      expect(kept[0]).toEqual({ role: "system", content: "Be brief." });

      const call = async (messages: ModelMessage[]) => {
        const model = scriptedModel([{ text: "ok", usage: [1, 1] }]);
        const errors: unknown[] = [];
        const result = streamText({
          model,
          messages: [...messages, { role: "user", content: "Now?" }],
          onError: ({ error }) => {
            errors.push(error);
          },
        });
        await result.consumeStream();
        return errors.length === 0 ? "ok" : (errors[0] as Error).name;
      };
      expect(await call(loaded)).toBe("ok");
      // ai 7 rejects system messages in `messages`; ai 5 and 6 take them with a warning.
      expect(await call(kept)).toBe(AI_MAJOR >= 7 ? "AI_InvalidPromptError" : "ok");
    });

    it("a window never starts with tool results whose call is older than the window", async () => {
      const id = await save();
      // The newest two stored messages are the weather result and the answer.
      expect(await loadModelMessages(ctx.store, id, { limit: 2 })).toEqual([CONVERSATION[4]]);
    });

    it("compress shortens long assistant text in the saved messages, keeping their other parts", async () => {
      const id = await save();
      const [, , , last] = await loadModelMessages(ctx.store, id, { limit: 10, compress: true });
      expect(last).toMatchObject({ role: "assistant" });
      expect(String(last!.content)).toContain("lookup_message");
      expect(String(last!.content).length).toBeLessThan(1000);
    });

    it("loadChat of an unknown chat is empty (the guide's file store throws), and other writers' provider-executed calls keep their flag", async () => {
      const chats = createChatStore(ctx.store, { userId: "u1" });
      expect(await chats.loadChat(newId())).toEqual([]);
      const id = await save();
      const loaded = await chats.loadChat(id);
      expect(loaded.map((m) => m.role)).toEqual(["user", "assistant", "assistant"]);
      expect(loaded[1]!.parts.filter((p) => p.type === "dynamic-tool")).toMatchObject([
        { toolCallId: "ws", providerExecuted: true, output: { hits: 1 } },
        { toolCallId: "c1", output: { sky: "snow" } },
      ]);
    });
  },
);
