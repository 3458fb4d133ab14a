import { BRIDGE_BACKENDS, runCli, useBridgeStore } from "@message-store/test-servers/bridge";
import { run } from "@openai/agents";
import { describe, expect, it } from "vitest";
import { MessageStoreSession } from "../src/index.js";
import { twoTurnScript, weatherAgent } from "./support/agent.js";

describe.each(BRIDGE_BACKENDS)(
  "the CLI shows a session written through the bridge (%s)",
  (backend) => {
    const ctx = useBridgeStore(backend);

    it("message-store show conversation: text, tool call, tool result and turn totals", async () => {
      const session = new MessageStoreSession({
        store: ctx.store,
        userId: "u1",
        agentId: "agents-bot",
        model: "gpt-test",
      });
      const { agent } = weatherAgent(twoTurnScript());
      await run(agent, "Weather in Paris?", { session });
      await ctx.store.close(); // the CLI opens the store itself

      const out = await runCli(["show", "conversation", session.sessionId, "--store", ctx.spec]);
      expect(out).toContain(`conversation "${session.sessionId}"`);
      expect(out).toContain("user u1 · agent agents-bot");
      expect(out).toMatch(/user\s+Weather in Paris\?/);
      expect(out).toContain('→ weather({"city":"Paris"})');
      expect(out).toContain('← weather (call-1): {"city":"Paris","sky":"sunny","temp":21}');
      expect(out).toMatch(/assistant\s+Sunny in Paris, 21°C\./);
      expect(out).toContain(
        "∑ turn: 74 tokens (60 prompt + 14 completion) · 2 LLM calls (gpt-test)",
      );
    });
  },
);
