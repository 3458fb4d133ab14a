import { AIMessage, type BaseMessage, isBaseMessage, ToolMessage } from "@langchain/core/messages";
import type {
  JsonObject,
  ModelPricing,
  SessionOptions,
  SessionTurn,
  TurnTraceInput,
} from "@message-store/core";
import { toTurns, turnUsage } from "@message-store/langchain";

/**
 * A message as last mirrored: the object, another object known to be equal (the same message
 * read back by `getTuple`), and its serialized form once it was needed.
 */
interface Seen {
  message: BaseMessage;
  alias?: BaseMessage;
  fingerprint?: string;
}

/** What the mirror remembers of one thread: its latest root checkpoint's messages. */
interface ThreadState {
  checkpointId: string;
  messages: Map<string, Seen>;
  /** When the running turn of the thread started (ms): its question, or the previous turn's end, was stored. */
  turnAt: number | null;
  /** The thread's owner, when a config named none and the saver looked it up. */
  owner?: SessionOptions;
}

/** The messages of a channel value that can be mirrored: LangChain messages with an id. */
export function mirrorable(value: unknown): BaseMessage[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (m): m is BaseMessage =>
      isBaseMessage(m) && typeof m.id === "string" && m.id !== "" && m.type !== "remove",
  );
}

/** An AIMessage that ends a turn: it asks for no tool. */
const endsTurn = (m: BaseMessage): m is AIMessage =>
  AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) === 0;

function fingerprint(seen: Seen): string {
  seen.fingerprint ??= JSON.stringify(seen.message.toDict());
  return seen.fingerprint;
}

/**
 * Mirrors a thread's `messages` channel into its conversation: each step writes only the
 * messages that are new or changed since the checkpoint it follows. The messages of the latest
 * checkpoint of each recent thread are remembered (the checkpoint a step follows is almost
 * always the one just written or read); for another one, the saver reads it from the store.
 */
export class TranscriptMirror {
  readonly #threads = new Map<string, ThreadState>();

  constructor(private readonly capacity: number) {}

  /**
   * Remembers the messages of checkpoint `checkpointId` of the thread (its root namespace). The
   * same checkpoint remembered again (written, then read back) keeps both objects of each
   * message, so that a step following either compares by identity.
   */
  remember(threadId: string, checkpointId: string, messages: readonly BaseMessage[]): void {
    const previous = this.#threads.get(threadId);
    const known = previous?.messages;
    const same = previous?.checkpointId === checkpointId;
    const map = new Map<string, Seen>();
    for (const m of messages) {
      const old = known?.get(m.id!);
      if (old && (old.message === m || old.alias === m)) map.set(m.id!, old);
      else if (old && same) map.set(m.id!, { ...old, alias: m });
      else map.set(m.id!, { message: m });
    }
    this.#set(threadId, {
      ...previous,
      checkpointId,
      messages: map,
      turnAt: previous?.turnAt ?? null,
    });
  }

  /** The owner looked up for a thread, if any. */
  ownerOf(threadId: string): SessionOptions | undefined {
    return this.#threads.get(threadId)?.owner;
  }

  rememberOwner(threadId: string, owner: SessionOptions): void {
    const state = this.#threads.get(threadId);
    if (state) state.owner = owner;
    else this.#set(threadId, { checkpointId: "", messages: new Map(), turnAt: null, owner });
  }

  /** Whether the messages of that checkpoint are remembered. */
  knows(threadId: string, checkpointId: string | null): boolean {
    return checkpointId !== null && this.#threads.get(threadId)?.checkpointId === checkpointId;
  }

  /**
   * The messages of `messages` that are not in the remembered checkpoint `parentId`, or differ
   * from it; all of them when nothing is remembered (a new thread: there is no parent).
   */
  changes(threadId: string, parentId: string | null, messages: readonly BaseMessage[]) {
    const state = this.knows(threadId, parentId) ? this.#threads.get(threadId) : undefined;
    return messages.filter((m) => {
      const seen = state?.messages.get(m.id!);
      if (!seen) return true;
      if (seen.message === m || seen.alias === m) return false;
      return fingerprint(seen) !== fingerprint({ message: m });
    });
  }

  /**
   * The duration of the thread's running turn at `now` (0 when it started in another process),
   * and, when `changed` starts or ends a turn (a human message, an AIMessage without tool calls),
   * `now` as the next one's start.
   */
  turnDuration(threadId: string, now: number, changed: readonly BaseMessage[]): number {
    const state = this.#threads.get(threadId);
    const since = state?.turnAt == null ? 0 : Math.max(0, now - state.turnAt);
    if (!changed.some((m) => m.type === "human" || endsTurn(m))) return since;
    if (state) state.turnAt = now;
    else this.#set(threadId, { checkpointId: "", messages: new Map(), turnAt: now });
    return since;
  }

  /** Forgets a thread (deleted). */
  forget(threadId: string): void {
    this.#threads.delete(threadId);
  }

  #set(threadId: string, state: ThreadState): void {
    this.#threads.delete(threadId);
    this.#threads.set(threadId, state);
    if (this.#threads.size > this.capacity) {
      this.#threads.delete(this.#threads.keys().next().value!);
    }
  }
}

/** Where mirrored messages and traces go. */
export interface MirrorTarget {
  threadId: string;
  userId: string;
  agentId: string;
  /** The turn's duration so far, shared by the model calls it made. */
  latencyMs: number;
  /** Prices of the models, for the traces' `costUsd`. */
  pricing?: ModelPricing;
  now: number;
  /** Stored on each trace's metadata. */
  checkpoint: { id: string; step: unknown };
}

/**
 * The turns that store `changed` (ids kept; a tool message gets the name and arguments of the
 * call it answers, looked up in `all`; no `metadata`), and the turn traces of the turns `changed` ends (see
 * {@link turnTraces}).
 */
export function mirrorWrites(
  changed: readonly BaseMessage[],
  all: readonly BaseMessage[],
  target: MirrorTarget,
): { turns: SessionTurn[]; traces: TurnTraceInput[] } {
  if (changed.length === 0) return { turns: [], traces: [] };
  const calls = new Map<string, { name: string; args: unknown }>();
  for (const m of all)
    if (AIMessage.isInstance(m)) for (const c of m.tool_calls ?? []) if (c.id) calls.set(c.id, c);
  const turns = toTurns(changed).map((t, i): SessionTurn => {
    // The message as LangChain serialises it (`metadata.langchain`) stays in the checkpoint,
    // which holds the graph's messages exactly: the transcript keeps the fields our tools read.
    const { metadata: _m, ...turn } = t;
    turn.id = changed[i]!.id!;
    const call = ToolMessage.isInstance(changed[i]!) ? calls.get(turn.toolCallId ?? "") : undefined;
    if (call) {
      turn.toolName ??= call.name;
      if (isObject(call.args))
        turn.toolArguments = JSON.parse(JSON.stringify(call.args)) as JsonObject;
    }
    return turn;
  });
  return { turns, traces: turnTraces(changed, all, target) };
}

/**
 * One turn trace per turn that a message of `changed` ends (an AIMessage without tool calls), on
 * that message and with its id: one LLM call per AIMessage of the turn (since the previous human
 * message or turn end, in `all`) that carries `usage_metadata`, sharing the turn's latency
 * (`turnUsage` of `@message-store/langchain`). None for a turn without usage.
 */
export function turnTraces(
  changed: readonly BaseMessage[],
  all: readonly BaseMessage[],
  target: MirrorTarget,
): TurnTraceInput[] {
  const ended = new Set(changed.filter(endsTurn));
  if (ended.size === 0) return [];
  const traces: TurnTraceInput[] = [];
  let turn: BaseMessage[] = [];
  for (const m of all) {
    if (m.type === "human") turn = [];
    else if (AIMessage.isInstance(m)) turn.push(m);
    if (!endsTurn(m)) continue;
    const usage = ended.has(m) ? turnUsage(turn, target.latencyMs, target.pricing) : null;
    turn = [];
    if (!usage) continue;
    traces.push({
      id: m.id!,
      messageId: m.id!,
      conversationId: target.threadId,
      agentId: target.agentId,
      timestamp: target.now,
      ...usage,
      metadata: {
        source: "langgraph",
        checkpointId: target.checkpoint.id,
        step: typeof target.checkpoint.step === "number" ? target.checkpoint.step : null,
      },
    });
  }
  return traces;
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
