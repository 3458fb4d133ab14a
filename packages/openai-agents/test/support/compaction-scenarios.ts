import { OpenAIResponsesCompactionSession, run } from "@openai/agents";
import { assistantMessage, functionCall } from "@openai/agents/testing";
import type { Scenario } from "./differential.js";
import { shopAgent, step } from "./run-scenarios.js";

interface CompactRequest {
  input?: { type?: string; role?: string; content?: unknown }[];
}

/**
 * A stand-in for the OpenAI client's `responses.compact`, the one endpoint the SDK's compaction
 * session calls: it keeps the user messages of the input (as the API returns them) and adds one
 * compaction item, as the real endpoint does, numbering the summaries it makes.
 */
export function compactingClient() {
  const requests: CompactRequest[] = [];
  const client = {
    responses: {
      compact: async (request: CompactRequest) => {
        requests.push(request);
        const users = (request.input ?? []).filter((i) => i.role === "user");
        return {
          output: [
            ...users.map((i) => ({
              type: "message",
              role: "user",
              content:
                typeof i.content === "string"
                  ? [{ type: "input_text", text: i.content }]
                  : i.content,
            })),
            { type: "compaction", encrypted_content: `summary-${requests.length}` },
          ],
          usage: { input_tokens: 100, output_tokens: 10, total_tokens: 110 },
        };
      },
    },
  };
  return { client, requests };
}

/** Scenarios through the SDK's `OpenAIResponsesCompactionSession`, by name. */
export const COMPACTION_SCENARIOS: Record<string, Scenario> = {
  "OpenAIResponsesCompactionSession compacts the session on request and keeps running": async (
    session,
    seen,
  ) => {
    const { client, requests } = compactingClient();
    const compacting = new OpenAIResponsesCompactionSession({
      client: client as never,
      underlyingSession: session,
      model: "gpt-4.1",
      compactionMode: "input",
      shouldTriggerCompaction: () => false,
    });
    const { agent, model } = shopAgent([
      step([functionCall("lookup", { id: "7" }, { callId: "call-1" })], [20, 8], 1),
      step([assistantMessage("Shipped.")], [40, 6], 2),
      step([assistantMessage("You're welcome.")], [50, 3], 3),
      step([assistantMessage("Bye!")], [30, 2], 4),
    ]);
    await run(agent, "Where is order 7?", { session: compacting });
    await run(agent, "Thanks", { session: compacting });
    seen.record("before", await session.getItems());
    seen.record("compaction", await compacting.runCompaction({ force: true }));
    seen.record(
      "sent for compaction",
      requests.map((r) => r.input),
    );
    seen.record("after", await session.getItems());
    seen.record("newest 1", await session.getItems(1));
    await run(agent, "Bye", { session: compacting });
    seen.record(
      "model inputs",
      model.calls.map((c) => c.request.input),
    );
    seen.record("items", await session.getItems());
    seen.record("compaction again", await compacting.runCompaction({ force: true }));
    seen.record("items", await session.getItems());
  },
};
