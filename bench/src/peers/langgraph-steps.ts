import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { fakeModel } from "@langchain/core/testing";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import {
  type ChannelVersions,
  type Checkpoint,
  type CheckpointMetadata,
  MemorySaver,
} from "@langchain/langgraph-checkpoint";

/** One `put` a graph made: what a saver is handed at that step. */
export interface RecordedPut {
  config: RunnableConfig;
  checkpoint: Checkpoint;
  metadata: CheckpointMetadata;
  newVersions: ChannelVersions;
}

/** LangGraph's own in-memory saver, keeping every put it is handed (its arguments are copies). */
class RecordingSaver extends MemorySaver {
  readonly puts: RecordedPut[] = [];
  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions = {},
  ): Promise<RunnableConfig> {
    this.puts.push({ config, checkpoint, metadata, newVersions });
    return super.put(config, checkpoint, metadata);
  }
}

const usage = (input: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
});

/**
 * The puts of a real LangGraph run: a `StateGraph` over `MessagesAnnotation` (an agent node on
 * LangChain's fake chat model, a tool node answering its tool call), `turns` turns on one thread
 * (the question, a tool call, its result, the answer: four messages and four puts a turn, after
 * the thread's first input). Every message gets a new id, so a run's puts can go to a thread of
 * their own in any saver.
 */
export async function recordAgentThread(turns: number): Promise<RecordedPut[]> {
  const model = fakeModel();
  for (let t = 0; t < turns; t++) {
    model.respond(
      new AIMessage({
        content: "",
        tool_calls: [{ id: `call-${t}`, name: "weather", args: { city: `City ${t}` } }],
        usage_metadata: usage(400 + 60 * t, 20),
        response_metadata: { model_name: "fake-gpt" },
      }),
    );
    model.respond(
      new AIMessage({
        content: `It is sunny in City ${t}, 21 °C, with a light breeze from the west.`,
        usage_metadata: usage(440 + 60 * t, 30),
        response_metadata: { model_name: "fake-gpt" },
      }),
    );
  }
  const saver = new RecordingSaver();
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode("tools", (state) => {
      const last = state.messages.at(-1) as AIMessage;
      return {
        messages: (last.tool_calls ?? []).map(
          (c) =>
            new ToolMessage({
              tool_call_id: c.id!,
              name: c.name,
              content: JSON.stringify({ city: c.args.city, sky: "sunny", temp: 21 }),
            }),
        ),
      };
    })
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (state) =>
      (state.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END,
    )
    .addEdge("tools", "agent")
    .compile({ checkpointer: saver });
  const config = { configurable: { thread_id: "recorded" } };
  for (let t = 0; t < turns; t++) {
    await graph.invoke(
      { messages: [new HumanMessage(`What is the weather in City ${t}?`)] },
      config,
    );
  }
  return saver.puts;
}
