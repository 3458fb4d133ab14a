import type { Message } from "@message-store/core";
import type { AdapterName } from "../adapters/types.js";
import type { PeerMeasurement } from "../scenario.js";
import { summarize } from "../stats.js";

/**
 * One system of the "vs peers" scenarios (ours or a library users would pick instead), driven
 * the way its documentation says. Records are converted to the system's own shape before the
 * clock starts: an application holds them in that shape already.
 */
export interface PeerSystem<Shape = unknown> {
  /** "ours", "Mastra", "LangChain"… */
  readonly name: string;
  /** What one stored message costs it: columns, extra rows, statements (for the report). */
  readonly writes: string;
  /** The system's own record for one of our messages (text, role, time and ids carried over). */
  convert(message: Message): Shape;
  /** Setup: a conversation (thread, session) that messages can be stored into. */
  createConversation(id: string, userId: string): Promise<void>;
  /** The system's batch API (all records of one conversation). */
  storeBatch(records: Shape[]): Promise<void>;
  /** One message, as an agent turn stores it. */
  append(record: Shape): Promise<void>;
  /** The newest `n` messages of a conversation, oldest first, its best way. */
  lastN(conversationId: string, n: number): Promise<unknown[]>;
  /** Setup only, not timed: the fastest way to put `records` of one conversation in place. */
  load(records: Shape[]): Promise<void>;
  close(): Promise<void>;
}

/** A "vs peers" row from one sample list per system, the first system being ours. */
export function peerRow(
  adapter: AdapterName,
  label: string,
  systems: readonly PeerSystem[],
  samples: number[][],
): PeerMeasurement {
  return {
    adapter,
    label,
    ours: summarize(samples[0]!),
    peers: systems.slice(1).map((s, k) => ({ name: s.name, stat: summarize(samples[k + 1]!) })),
  };
}
