// The agent the tests run, in plain JavaScript so that a test can also run it in a new Node
// process (test/fixtures/next-turn.mjs). Types: weather-graph.d.mts.
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { END, interrupt, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { z } from "zod";

/** A real LangChain tool. */
export const weather = tool(async ({ city }) => JSON.stringify({ city, sky: "sunny", temp: 21 }), {
  name: "weather",
  description: "Current weather of a city",
  schema: z.object({ city: z.string() }),
});

/** An AIMessage as a provider returns it: usage and model name filled. */
export function reply(content, usage, toolCalls = []) {
  return new AIMessage({
    content,
    tool_calls: toolCalls.map((c) => ({ ...c, type: "tool_call" })),
    usage_metadata: {
      input_tokens: usage[0],
      output_tokens: usage[1],
      total_tokens: usage[0] + usage[1],
    },
    response_metadata: { model_name: "fake-gpt" },
  });
}

/**
 * A tool-calling agent: LangChain's fake chat model (queued replies) with the weather tool bound,
 * LangGraph's prebuilt ToolNode, and (with `approve`) a node that interrupts before each tool run
 * and goes on when resumed with "yes".
 */
export function weatherGraph({ checkpointer, replies, approve = false }) {
  const model = fakeModel();
  for (const r of replies) model.respond(r);
  const bound = model.bindTools([weather]);
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({ messages: [await bound.invoke(state.messages)] }))
    .addNode("tools", new ToolNode([weather]))
    .addEdge(START, "agent")
    .addEdge("tools", "agent");
  if (!approve) {
    graph.addConditionalEdges("agent", toolsCondition, ["tools", END]);
  } else {
    graph
      .addNode("approve", () => {
        const answer = interrupt({ question: "run the tool?" });
        if (answer !== "yes") throw new Error(`not approved: ${answer}`);
        return {};
      })
      .addConditionalEdges("agent", toolsCondition, { tools: "approve", [END]: END })
      .addEdge("approve", "tools");
  }
  return { model, graph: graph.compile({ checkpointer }) };
}
