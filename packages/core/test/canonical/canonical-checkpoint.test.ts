import { describe, expect, it } from "vitest";
import {
  fastCheckpoint,
  fastPutOptions,
  fastReadOptions,
} from "../../src/canonical/canonical-checkpoint.js";
import {
  CheckpointInputSchema,
  CheckpointPutOptionsSchema,
  CheckpointReadOptionsSchema,
} from "../../src/index.js";

/**
 * The checkpoint fast paths answer exactly what the schemas answer, or leave it to them: over
 * variations of a valid input, every answer equals the schema's output, and nothing the schema
 * rejects is answered.
 */

const bytes = (text: string) => new TextEncoder().encode(text);
const value = () => ({ type: "json", data: bytes("{}") });

const BASE = {
  conversationId: "t",
  id: "c1",
  checkpoint: value(),
  channelVersions: { a: "1" },
  values: [{ channel: "a", version: "1", value: value() }],
};

const CHECKPOINTS: Record<string, unknown>[] = [
  BASE,
  { conversationId: "t", id: "c", checkpoint: value() },
  {
    ...BASE,
    namespace: "child:1",
    parentId: "c0",
    metadata: { source: "loop", n: [1, { x: null }] },
  },
  { ...BASE, namespace: undefined, parentId: undefined, metadata: undefined, values: undefined },
  { ...BASE, parentId: null },
  { ...BASE, namespace: null },
  { ...BASE, namespace: "x".repeat(1025) },
  { ...BASE, parentId: "" },
  { ...BASE, id: "x".repeat(257) },
  { ...BASE, conversationId: "\ud800" },
  { ...BASE, checkpoint: { type: "json", data: "{}" } },
  { ...BASE, checkpoint: { type: "", data: bytes("") } },
  { ...BASE, checkpoint: { type: "json", data: bytes(""), extra: 1 } },
  { ...BASE, checkpoint: { type: "json", data: Buffer.from("{}") } },
  { ...BASE, channelVersions: { a: 1 } },
  { ...BASE, channelVersions: { "": "1" } },
  { ...BASE, channelVersions: [] },
  { ...BASE, metadata: { bad: undefined } },
  { ...BASE, metadata: { n: Number.NaN } },
  { ...BASE, metadata: [] },
  {
    ...BASE,
    values: [
      { channel: "a", version: "1", value: value() },
      { channel: "a", version: "1", value: value() },
    ],
  },
  { ...BASE, values: [{ channel: "a", version: "", value: value() }] },
  { ...BASE, values: [{ channel: "a", version: "1", value: value(), more: 1 }] },
  { ...BASE, values: {} },
  { ...BASE, unknown: 1 },
  Object.create(BASE),
];

const TURN = { id: "m1", role: "user", content: "hi" };
const TRACE = {
  id: "t1",
  messageId: "m1",
  conversationId: "t",
  agentId: "a",
  timestamp: 1,
  totalTokens: 1,
  totalLatencyMs: 1,
};

const OPTIONS: Record<string, unknown>[] = [
  { userId: "u" },
  { userId: "u", agentId: "a", tenantId: "t", title: "x", messages: [TURN], traces: [TRACE] },
  { userId: "u", messages: [], traces: [] },
  { userId: "u", messages: [{ role: "assistant", content: "", toolCalls: [] }] },
  { userId: "" },
  { userId: "u", agentId: 1 },
  { userId: "u", title: 1 },
  { userId: "u", other: 1 },
  { userId: "u", messages: [{ ...TURN, timestamp: 1 }] },
  { userId: "u", messages: [{ role: "user" }] },
  { userId: "u", traces: [{ ...TRACE, totalTokens: -1 }] },
  { userId: "u", messages: {} },
];

describe("checkpoint fast paths", () => {
  it("a checkpoint: the schema's output (bytes copied), or no answer", () => {
    let answered = 0;
    for (const input of CHECKPOINTS) {
      const fast = fastCheckpoint(input);
      const parsed = CheckpointInputSchema.safeParse(input);
      if (fast === undefined) continue;
      answered++;
      expect(parsed.success, JSON.stringify(input)).toBe(true);
      expect(fast).toEqual(parsed.data);
      expect(fast.checkpoint.data).not.toBe((input as typeof BASE).checkpoint.data);
      expect(Object.getPrototypeOf(fast.checkpoint.data)).toBe(Uint8Array.prototype);
    }
    expect(answered).toBe(6);
  });

  it("put options: what the schema accepts, turns left for the message schema, or no answer", () => {
    let answered = 0;
    for (const input of OPTIONS) {
      const fast = fastPutOptions(input);
      const parsed = CheckpointPutOptionsSchema.safeParse(input);
      if (fast === undefined) continue;
      answered++;
      expect(parsed.success, JSON.stringify(input)).toBe(true);
      const { messages, ...rest } = parsed.data!;
      expect({ ...fast, messages: undefined }).toEqual({ ...rest, messages: undefined });
      expect(fast.messages).toHaveLength(messages.length);
    }
    expect(answered).toBe(4);
  });

  it("read options: the schema's output, or no answer", () => {
    const inputs = [
      {},
      { namespace: "x" },
      { id: "c" },
      { namespace: "", id: "c" },
      { id: "" },
      { namespace: null },
      { ns: "" },
      [],
      null,
      { id: undefined },
    ];
    let answered = 0;
    for (const input of inputs) {
      const fast = fastReadOptions(input);
      if (fast === undefined) continue;
      answered++;
      expect(fast).toEqual(CheckpointReadOptionsSchema.parse(input));
    }
    expect(answered).toBe(5);
  });
});
