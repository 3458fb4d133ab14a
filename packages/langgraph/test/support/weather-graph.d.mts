import type { AIMessage } from "@langchain/core/messages";
import type { FakeBuiltModel } from "@langchain/core/testing";
import type { StructuredTool } from "@langchain/core/tools";
import type { CompiledStateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";

export declare const weather: StructuredTool;
export declare function reply(
  content: string,
  usage: [input: number, output: number],
  toolCalls?: { id: string; name: string; args: Record<string, unknown> }[],
): AIMessage;
export declare function weatherGraph(options: {
  checkpointer: BaseCheckpointSaver;
  replies: AIMessage[];
  approve?: boolean;
}): { model: FakeBuiltModel; graph: CompiledStateGraph<any, any, any, any, any, any> };
