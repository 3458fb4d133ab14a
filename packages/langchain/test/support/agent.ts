import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

/** A real LangChain tool. */
export const weather = tool(async ({ city }) => JSON.stringify({ city, sky: "sunny", temp: 21 }), {
  name: "weather",
  description: "Current weather of a city",
  schema: z.object({ city: z.string() }),
});

/** An AIMessage as a provider returns it: usage and model name filled. */
export function reply(
  content: string,
  usage: [input: number, output: number],
  toolCalls: { id: string; name: string; args: Record<string, unknown> }[] = [],
): AIMessage {
  return new AIMessage({
    content,
    tool_calls: toolCalls.map((c) => ({ ...c, type: "tool_call" as const })),
    usage_metadata: {
      input_tokens: usage[0],
      output_tokens: usage[1],
      total_tokens: usage[0] + usage[1],
    },
    response_metadata: { model_name: "fake-gpt" },
  });
}

/**
 * LangChain's fake chat model (queued replies) with the weather tool bound, and a tool-calling
 * loop around it: model, run the requested tools, model again, until it stops calling tools.
 * The loop returns every message it produced, which `RunnableWithMessageHistory` stores.
 */
export function toolAgent(replies: AIMessage[]) {
  const model = fakeModel();
  for (const r of replies) model.respond(r);
  const bound = model.bindTools([weather]);
  const agent = RunnableLambda.from(async (messages: BaseMessage[]) => {
    const produced: BaseMessage[] = [];
    let message = await bound.invoke(messages);
    produced.push(message);
    while (message.tool_calls?.length) {
      for (const call of message.tool_calls)
        produced.push(await weather.invoke({ ...call, type: "tool_call" }));
      message = await bound.invoke([...messages, ...produced]);
      produced.push(message);
    }
    return produced;
  });
  return { model, agent };
}
