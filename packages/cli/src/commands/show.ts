import type { Message, TurnTrace } from "@message-store/core";
import { CommandFailedError } from "../cli-errors.js";
import { renderTranscript } from "../format/transcript.js";
import { withStore } from "../open-store.js";
import { writeLine } from "../output.js";
import type { StoreConfigObject } from "../store-spec.js";
import { messagePages, tracePages } from "../walk.js";

/**
 * `message-store show conversation <id>`: the transcript with markers and per-turn trace totals;
 * soft-deleted records only with `includeDeleted` (then marked).
 */
export async function showConversationCommand(
  config: StoreConfigObject,
  id: string,
  options: { full: boolean; includeDeleted: boolean },
  io: { stdout: NodeJS.WritableStream },
): Promise<void> {
  const read = { includeDeleted: options.includeDeleted };
  const text = await withStore(
    config,
    async (store) => {
      const conversation = await store.getConversation(id, read);
      if (conversation === null)
        throw new CommandFailedError(`no conversation with id ${JSON.stringify(id)}`);
      const messages: Message[] = [];
      for await (const page of messagePages(store, id, 1000, read)) messages.push(...page);
      // One query for all traces of the conversation instead of one lookup per assistant message.
      const traces = new Map<string, TurnTrace>();
      for await (const page of tracePages(store, { conversationId: id, ...read }, 1000)) {
        for (const t of page) traces.set(t.messageId, t);
      }
      return renderTranscript(conversation, messages, traces, { maxJson: options.full ? 0 : 160 });
    },
    { create: false },
  );
  await writeLine(io.stdout, text);
}
