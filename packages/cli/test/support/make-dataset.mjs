#!/usr/bin/env node
// Deterministic sample data as a message-store NDJSON export (header … footer), with the
// awkward cases a migration must carry: NUL characters, `$` and `.` in JSON keys, astral ids
// (code-point order differs from UTF-16 order), same-timestamp tool call and result, flagged
// messages, float64 embeddings, traces with costs and errors, a conversation without messages.
// Keys are written in a scrambled order on purpose: exports must sort them.
//
//   node test/support/make-dataset.mjs <out.ndjson> [conversations] [messagesPerConversation]

import { writeFileSync } from "node:fs";

const AGENTS = ["support-bot", "travel-bot", "code-helper"];
const TOOLS = ["search_flights", "lookup_order", "run_python"];
const MODELS = ["gpt-4o", "gpt-4o-mini", "claude-sonnet"];
const START = Date.UTC(2025, 5, 1, 8, 0, 0);

function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function conversationId(i) {
  if (i === 1) return "conv-\u{1F600}-astral";
  if (i === 2) return "conv-\uFF5E-bmp";
  return `conv-${String(i).padStart(5, "0")}`;
}

/**
 * The lines (without newlines) of an export with `conversations` conversations of about
 * `perConversation` messages each (conversation 3 has none).
 * @param {{ conversations: number; perConversation: number; seed?: number }} options
 * @returns {{ lines: string[]; counts: { conversations: number; messages: number; turnTraces: number } }}
 */
export function makeDataset({ conversations, perConversation, seed = 42 }) {
  const rnd = random(seed);
  const pick = (list) => list[Math.floor(rnd() * list.length)];
  const lines = [JSON.stringify({ type: "header", format: "message-store-export", version: 1 })];
  const counts = { conversations: 0, messages: 0, turnTraces: 0 };
  for (let i = 0; i < conversations; i++) {
    const id = conversationId(i);
    const userId = `user-${i % 7}`;
    const agentId = AGENTS[i % AGENTS.length];
    const createdAt = START + i * 3_600_000;
    lines.push(
      JSON.stringify({
        type: "conversation",
        data: {
          updatedAt: createdAt + 1000,
          title: `Chat ${i} \u00e9\u00e8 \u{1F680}`,
          userId,
          id,
          agentId,
          createdAt,
          tags: i % 2 ? ["vip", "support"] : [],
          metadata: {
            zeta: i,
            alpha: { $set: true, "a.b": [1, "nul\u0000inside"] },
            $channel: "web",
          },
        },
      }),
    );
    counts.conversations++;
    const total = i === 3 ? 0 : perConversation;
    let t = createdAt + 5000;
    let toolName = TOOLS[0];
    for (let j = 0; j < total; j++) {
      const kind = j % 4;
      const messageId = `${id}-m${String(j).padStart(4, "0")}`;
      if (kind !== 2) t += 1000 + Math.floor(rnd() * 5000);
      const base = { id: messageId, conversationId: id, userId, timestamp: t };
      let message;
      if (kind === 0) {
        message = {
          ...base,
          role: "user",
          originalContent: `Question ${j} of ${id}\nsecond line \u0000 with NUL`,
          embedding: [Math.sin(i + j), Math.cos(i * j) / 3, 1e-300 * (j + 1), -0.1 * j],
          sentimentScore: Math.round((rnd() - 0.5) * 1e6) / 1e6,
          isFlagged: j % 13 === 12,
          entities: [{ attributes: ["iata"], name: "LIS" }],
          metadata: { "k.ey": "v", $x: null },
        };
      } else if (kind === 1) {
        toolName = pick(TOOLS);
        message = {
          ...base,
          role: "assistant",
          originalContent: "Let me check.",
          toolCalls: [
            {
              toolCallId: `${messageId}-call`,
              toolName,
              arguments: { query: `q${j}`, $opt: { "a.b": 1 } },
            },
          ],
          invokedTools: [toolName],
        };
      } else if (kind === 2) {
        const call = `${id}-m${String(j - 1).padStart(4, "0")}-call`;
        message = {
          ...base,
          role: "tool",
          originalContent: JSON.stringify({ hits: j, ok: true }),
          toolCallId: call,
          toolName,
          isFlagged: j % 13 === 12,
        };
      } else {
        message = {
          ...base,
          role: "assistant",
          originalContent: `Answer ${j}: all done.`,
          intent: "answer",
        };
      }
      lines.push(JSON.stringify({ type: "message", data: message }));
      counts.messages++;
      if (kind === 3) {
        const calls = 1 + Math.floor(rnd() * 2);
        const llmCalls = Array.from({ length: calls }, (_, k) => ({
          model: pick(MODELS),
          purpose: k === 0 ? "agent_loop" : "enhancement",
          promptTokens: 100 + Math.floor(rnd() * 900),
          completionTokens: 20 + Math.floor(rnd() * 300),
          latencyMs: Math.round(rnd() * 2_000_000) / 1000,
          costUsd: Math.round(rnd() * 1e7) / 1e10,
        }));
        const totalTokens = llmCalls.reduce((s, c) => s + c.promptTokens + c.completionTokens, 0);
        lines.push(
          JSON.stringify({
            type: "turnTrace",
            data: {
              totalTokens,
              id: `trace-${id}-${j}`,
              messageId,
              conversationId: id,
              agentId,
              userId,
              timestamp: t,
              totalLatencyMs: llmCalls.reduce((s, c) => s + c.latencyMs, 0) + 12.5,
              llmCalls,
              toolTraces: [
                {
                  toolName: "run_python",
                  finalData: { $result: [1, 2.5], "x.y": "z" },
                  outputBytes: 42,
                  exitCode: 0,
                },
              ],
              errors: j % 7 === 3 ? [{ type: "timeout", "detail.ms": 3000 }] : [],
              metadata: { b: 1, a: 2 },
            },
          }),
        );
        counts.turnTraces++;
      }
    }
  }
  lines.push(JSON.stringify({ type: "footer", ...counts }));
  return { lines, counts };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  const [out, conversations = "12", perConversation = "8"] = process.argv.slice(2);
  const { lines, counts } = makeDataset({
    conversations: Number(conversations),
    perConversation: Number(perConversation),
  });
  writeFileSync(out, `${lines.join("\n")}\n`);
  console.error(`wrote ${out}: ${JSON.stringify(counts)}`);
}
