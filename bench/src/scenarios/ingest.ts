import { type Message, MessageSchema } from "@message-store/core";
import { canonicalMessage, parseInput } from "@message-store/core/adapter";
import { BASE_TIME, makeConversation, makeMessage, rng } from "../data.js";
import type { Scenario } from "../scenario.js";
import { sampleInterleaved, summarize } from "../stats.js";

const BATCH = 500;
const PER_CONVERSATION = 100;
const MAX_WARMUP_BATCHES = 4;

/** Batch `i` of a side: 5 conversations × 100 messages, the same content for both sides. */
function batch(prefix: string, i: number): Message[] {
  const random = rng(1000 + i);
  const out: Message[] = [];
  for (let k = 0; k < BATCH; k++) {
    const global = i * BATCH + k;
    const c = Math.floor(global / PER_CONVERSATION);
    const n = global % PER_CONVERSATION;
    out.push(
      makeMessage(
        `${prefix}-m-${String(global).padStart(7, "0")}`,
        `${prefix}-c-${c}`,
        `user-${c % 50}`,
        n,
        BASE_TIME + n * 1000,
        random,
      ),
    );
  }
  return out;
}

export const ingest: Scenario = {
  id: "ingest",
  title: "1. Bulk ingest",
  description:
    "100,000 messages (5 conversations × 100 messages per batch, ~450 characters of text each, some entities and tool calls) through `storeMessages` in batches of 500, into conversations created beforehand. Raw minimum: Postgres — one `INSERT … SELECT FROM jsonb_to_recordset($1)` of `JSON.stringify(batch)` into the same table; Mongo — one `insertMany` of the documents; JSON — one append of 500 JSON lines + `fdatasync`. Batches alternate between ours and raw (which goes first alternates too), so both tables grow alike. Rate = messages ÷ summed batch time.",
  adapters: ["postgres", "mongo", "json"],
  async run({ target, progress, limits }) {
    await target.reset();
    const total = limits.ingestMessages;
    const batches = total / BATCH;
    const WARMUP_BATCHES = Math.min(MAX_WARMUP_BATCHES, Math.ceil(batches / 4));
    const conversations = total / PER_CONVERSATION;
    const setup = progress.task(`${target.name}: ingest setup`, 2 * conversations);
    for (const side of ["ours", "raw", "warm-o", "warm-r"] as const) {
      const count = side.startsWith("warm")
        ? (WARMUP_BATCHES * BATCH) / PER_CONVERSATION
        : conversations;
      for (let c = 0; c < count; c++) {
        const conv = makeConversation(`${side}-c-${c}`, `user-${c % 50}`, "agent-1");
        if (side === "ours" || side === "warm-o") await target.store.storeConversation(conv);
        else await target.raw.storeConversation(conv);
        setup.tick();
      }
    }
    setup.done();
    for (let i = 0; i < WARMUP_BATCHES; i++) {
      await target.store.storeMessages(batch("warm-o", i));
      await target.raw.storeMessages(batch("warm-r", i));
    }
    const task = progress.task(
      `${target.name}: ingest ${total.toLocaleString("en-US")} × 2`,
      batches,
    );
    const samples = await sampleInterleaved(
      batches,
      (i) => {
        const ours = batch("ours", i);
        const raw = batch("raw", i);
        return {
          ours: () => target.store.storeMessages(ours),
          raw: () => target.raw.storeMessages(raw),
        };
      },
      () => task.tick(),
    );
    task.done();
    // What core's input validation alone costs per batch (the same for every adapter): its
    // structural fast path as `storeMessages` runs it, and a full zod parse for comparison.
    const validation: number[] = [];
    const zodOnly: number[] = [];
    const schema = MessageSchema.array();
    const fast = (v: unknown) => {
      const out: Message[] = [];
      for (const m of v as unknown[]) {
        const canonical = canonicalMessage(m, true);
        if (canonical === undefined) return undefined;
        out.push(canonical);
      }
      return out;
    };
    for (let i = 0; i < 30; i++) {
      const input = batch("validate", i % batches);
      let started = performance.now();
      parseInput(schema, input, "messages", undefined, fast);
      validation.push(performance.now() - started);
      started = performance.now();
      parseInput(schema, input, "messages");
      zodOnly.push(performance.now() - started);
    }
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const oursRate = total / (sum(samples.ours) / 1000);
    const rawRate = total / (sum(samples.raw) / 1000);
    const ratio = rawRate / oursRate;
    const targets =
      target.name === "postgres"
        ? [
            {
              adapter: target.name,
              target: "ingest ≤ 1.3× raw",
              value: `${ratio.toFixed(2)}×`,
              pass: ratio <= 1.3,
            },
          ]
        : [];
    return {
      measurements: [
        {
          adapter: target.name,
          label: `storeMessages, batch of ${BATCH} (${total.toLocaleString("en-US")} messages)`,
          ours: summarize(samples.ours),
          raw: summarize(samples.raw),
          rate: { ours: oursRate, raw: rawRate, unit: "messages/s" },
          ratio,
          note: `of which core's input validation: ${summarize(validation).p50.toFixed(2)} ms per batch (median; a full zod parse: ${summarize(zodOnly).p50.toFixed(2)} ms)`,
        },
      ],
      targets,
      notes: [],
    };
  },
};
