import type { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import { InMemoryChatMessageHistory } from "@langchain/core/chat_history";
import type { BaseMessage } from "@langchain/core/messages";
import { type Observation, Observations } from "@message-store/test-servers/bridge";

/** The histories of a scenario, one per session id (as `getMessageHistory` hands them out). */
export type Histories = (sessionId: string) => BaseListChatMessageHistory;

/**
 * A message as a scenario compares it: its class (so a chunk must come back as a chunk) and
 * LangChain's own serialisation, with the ids LangChain generates per run (`run-…`) replaced by
 * a placeholder, since two runs never share them.
 */
export function describeMessage(message: BaseMessage): unknown {
  const { type, data } = message.toDict();
  const id = typeof data.id === "string" && data.id.startsWith("run-") ? "<run id>" : data.id;
  return { class: message.constructor.name, type, data: { ...data, id } };
}

/** Records the messages of a history, described by {@link describeMessage}. */
export async function recordMessages(
  seen: Observations,
  label: string,
  history: BaseListChatMessageHistory,
): Promise<void> {
  seen.record(label, (await history.getMessages()).map(describeMessage));
}

/**
 * A scenario: what a program does with chat histories, recording what it observes. It is run
 * twice, on LangChain's `InMemoryChatMessageHistory` and on the history under test, and must
 * build every model and chain it uses itself.
 */
export type Scenario = (histories: Histories, seen: Observations) => Promise<void>;

/** Runs `scenario` on in-memory histories and on `ours`; resolves to both observations. */
export async function differential(
  scenario: Scenario,
  ours: Histories,
): Promise<{ reference: Observation[]; actual: Observation[] }> {
  const memory = new Map<string, InMemoryChatMessageHistory>();
  const reference = new Observations();
  await scenario((id) => {
    if (!memory.has(id)) memory.set(id, new InMemoryChatMessageHistory());
    return memory.get(id)!;
  }, reference);
  const actual = new Observations();
  await scenario(ours, actual);
  return { reference: reference.list, actual: actual.list };
}

/** Resolves once `history` holds `count` messages: chains save after their output is sent. */
export async function saved(history: BaseListChatMessageHistory, count: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await history.getMessages()).length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the history never reached ${count} messages`);
}
