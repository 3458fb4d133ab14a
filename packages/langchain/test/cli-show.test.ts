import { HumanMessage } from "@langchain/core/messages";
import { RunnableWithMessageHistory } from "@langchain/core/runnables";
import { newId } from "@message-store/core";
import { BRIDGE_BACKENDS, runCli, useBridgeStore } from "@message-store/test-servers/bridge";
import { describe, expect, it } from "vitest";
import { MessageStoreChatMessageHistory } from "../src/index.js";
import { reply, toolAgent } from "./support/agent.js";

describe.each(BRIDGE_BACKENDS)(
  "the CLI shows a session written through the history (%s)",
  (backend) => {
    const ctx = useBridgeStore(backend);

    it("message-store show conversation: text, tool call, tool result and turn totals", async () => {
      const sessionId = newId();
      const { agent } = toolAgent([
        reply("", [20, 8], [{ id: "call-1", name: "weather", args: { city: "Paris" } }]),
        reply("Sunny in Paris.", [40, 6]),
      ]);
      const chain = new RunnableWithMessageHistory({
        runnable: agent,
        getMessageHistory: (id: string) =>
          new MessageStoreChatMessageHistory({
            store: ctx.store,
            sessionId: id,
            userId: "u1",
            agentId: "lc-bot",
          }),
      });
      await chain.invoke([new HumanMessage("Weather in Paris?")], { configurable: { sessionId } });
      await ctx.store.close(); // the CLI opens the store itself

      const out = await runCli(["show", "conversation", sessionId, "--store", ctx.spec]);
      expect(out).toContain(`conversation "${sessionId}"`);
      expect(out).toContain("user u1 · agent lc-bot");
      expect(out).toMatch(/user\s+Weather in Paris\?/);
      expect(out).toContain('→ weather({"city":"Paris"})');
      expect(out).toContain('← weather (call-1): {"city":"Paris","sky":"sunny","temp":21}');
      expect(out).toMatch(/assistant\s+Sunny in Paris\./);
      expect(out).toContain(
        "∑ turn: 74 tokens (60 prompt + 14 completion) · 2 LLM calls (fake-gpt)",
      );
    });
  },
);
