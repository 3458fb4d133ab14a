import { newId } from "@message-store/core";
import { runCli, useBridgeStore } from "@message-store/test-servers/bridge";
import { type ModelMessage, stepCountIs, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { saveModelMessages } from "../src/index.js";
import { BACKENDS, responseMessagesOf } from "./support/ai-major.js";
import { scriptedModel } from "./support/mock-model.js";

describe.each(BACKENDS)(
  "the CLI shows a conversation written through the bridge (%s)",
  (backend) => {
    const ctx = useBridgeStore(backend);

    it("message-store show conversation: text, tool call, tool result and turn totals", async () => {
      const conversationId = newId();
      const model = scriptedModel([
        {
          text: "Checking.",
          toolCalls: [{ id: "call-1", name: "weather", input: { city: "Paris" } }],
          usage: [30, 12],
        },
        { text: "Sunny in Paris.", usage: [60, 9] },
      ]);
      const prompt: ModelMessage = { role: "user", content: "Weather in Paris?" };
      const result = streamText({
        model,
        messages: [prompt],
        tools: {
          weather: tool({
            inputSchema: z.object({ city: z.string() }),
            execute: async () => ({ sky: "sunny" }),
          }),
        },
        stopWhen: stepCountIs(3),
      });
      await result.consumeStream();
      await saveModelMessages(ctx.store, {
        conversationId,
        userId: "u1",
        agentId: "weather-bot",
        messages: [prompt, ...(await responseMessagesOf(result))],
        steps: await result.steps,
      });
      await ctx.store.close(); // the CLI opens the store itself

      const out = await runCli(["show", "conversation", conversationId, "--store", ctx.spec]);
      expect(out).toContain(`conversation "${conversationId}"`);
      expect(out).toContain("user u1 · agent weather-bot");
      expect(out).toMatch(/user\s+Weather in Paris\?/);
      expect(out).toMatch(/assistant\s+Checking\./);
      expect(out).toContain('→ weather({"city":"Paris"})');
      expect(out).toContain('← weather (call-1): {"sky":"sunny"}');
      expect(out).toMatch(/assistant\s+Sunny in Paris\./);
      expect(out).toContain(
        "∑ turn: 111 tokens (90 prompt + 21 completion) · 2 LLM calls (mock-model)",
      );
    });
  },
);
