import type { Message, MessageStoreApi, SessionTurn } from "@message-store/core";
import type { AgentInputItem } from "@openai/agents";
import { itemGroupsOf } from "./record-to-items.js";
import { type HiddenReason, hiddenTurn, rewrittenTurn } from "./stored-turns.js";

/** A visible (not flagged) message of the session and the items it stands for. */
export interface HistoryEntry {
  message: Message;
  items: AgentInputItem[];
}

const PAGE = 1000;

/** Every message of the conversation, flagged ones included, oldest first. */
export async function readTranscript(view: MessageStoreApi, sessionId: string): Promise<Message[]> {
  const messages: Message[] = [];
  let cursor: string | null = null;
  do {
    const page = await view.getMessagesByConversationId(sessionId, { limit: PAGE, cursor });
    messages.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return messages;
}

/** The visible messages of a transcript (or of a context window) with their items. */
export function entriesOf(messages: readonly Message[]): HistoryEntry[] {
  const visible = messages.filter((m) => !m.isFlagged);
  const groups = itemGroupsOf(visible);
  return visible.map((message, i) => ({ message, items: groups[i]! }));
}

/**
 * The turns that take the newest `count` items out of the history: messages whose items all go
 * are hidden for `reason`; a message that keeps some of its items is rewritten with those.
 */
export function dropNewestItems(
  entries: readonly HistoryEntry[],
  count: number,
  reason: HiddenReason,
): SessionTurn[] {
  const turns: SessionTurn[] = [];
  let left = count;
  for (let i = entries.length - 1; i >= 0 && left > 0; i--) {
    const { message, items } = entries[i]!;
    if (items.length === 0) continue;
    if (items.length <= left) {
      turns.push(hiddenTurn(message, reason));
      left -= items.length;
    } else {
      turns.push(rewrittenTurn(message, items.slice(0, items.length - left)));
      left = 0;
    }
  }
  return turns.reverse();
}

/**
 * The turns of a `replace_function_call` mutation: the first `function_call` with `callId` in
 * the history becomes `replacement`, later ones with that id go (the SDK's `MemorySession`
 * rule). `entries` are updated in place, so several mutations apply one after the other.
 */
export function replaceFunctionCall(
  entries: HistoryEntry[],
  callId: string,
  replacement: AgentInputItem,
  changed: Set<HistoryEntry>,
): void {
  let kept = false;
  for (const entry of entries) {
    const items: AgentInputItem[] = [];
    let touched = false;
    for (const item of entry.items) {
      if (item.type !== "function_call" || item.callId !== callId) {
        items.push(item);
        continue;
      }
      touched = true;
      if (!kept) items.push(structuredClone(replacement));
      kept = true;
    }
    if (touched) {
      entry.items = items;
      changed.add(entry);
    }
  }
}

/** The turns that store the entries a mutation changed. */
export function changedTurns(entries: readonly HistoryEntry[], changed: Set<HistoryEntry>) {
  return entries
    .filter((entry) => changed.has(entry))
    .map((entry) =>
      entry.items.length === 0
        ? hiddenTurn(entry.message, "mutated")
        : rewrittenTurn(entry.message, entry.items),
    );
}
