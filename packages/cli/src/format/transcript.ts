import type { Conversation, Message, TurnTrace } from "@message-store/core";
import { canonicalJson } from "../ndjson.js";
import { formatCost, formatCount, formatMs } from "./numbers.js";
import { formatDate, formatTime, formatTimestamp } from "./time.js";
import { visible } from "./visible.js";

/** Markers used in a transcript (also printed as its legend). */
export const MARKERS = { flagged: "⚑", toolCall: "→", toolResult: "←", trace: "∑" } as const;

export interface TranscriptOptions {
  /** Longest tool argument / result text shown before it is cut with `…` (0: never cut). */
  maxJson: number;
}

function clip(text: string, max: number): string {
  return max > 0 && text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function json(value: unknown, max: number): string {
  return clip(typeof value === "string" ? value : canonicalJson(value), max);
}

function plural(n: number, word: string): string {
  return `${formatCount(n)} ${word}${n === 1 ? "" : "s"}`;
}

/** One line of totals for a turn: tokens, LLM calls, tool runs, latency, cost, errors. */
export function traceSummary(t: TurnTrace): string {
  const prompt = t.llmCalls.reduce((s, c) => s + c.promptTokens, 0);
  const completion = t.llmCalls.reduce((s, c) => s + c.completionTokens, 0);
  const cost = t.llmCalls.reduce((s, c) => s + (c.costUsd ?? 0), 0);
  const models = [...new Set(t.llmCalls.map((c) => c.model))];
  const parts = [
    `${formatCount(t.totalTokens)} tokens` +
      (prompt + completion > 0
        ? ` (${formatCount(prompt)} prompt + ${formatCount(completion)} completion)`
        : ""),
    plural(t.llmCalls.length, "LLM call") + (models.length > 0 ? ` (${models.join(", ")})` : ""),
    ...(t.toolTraces.length > 0 ? [plural(t.toolTraces.length, "tool run")] : []),
    formatMs(t.totalLatencyMs),
  ];
  if (cost > 0) parts.push(formatCost(cost));
  if (t.errors.length > 0) parts.push(plural(t.errors.length, "error"));
  return `${MARKERS.trace} turn: ${parts.join(" · ")}`;
}

function header(c: Conversation, messageCount: number): string[] {
  const facts = [
    `user ${c.userId}`,
    ...(c.agentId === null ? [] : [`agent ${c.agentId}`]),
    `created ${formatTimestamp(c.createdAt)}`,
    plural(messageCount, "message"),
    ...(c.tags.length > 0 ? [`tags: ${c.tags.join(", ")}`] : []),
  ];
  return [
    `conversation ${JSON.stringify(c.id)}${c.title === null ? "" : ` — ${c.title}`}`,
    facts.join(" · "),
  ];
}

/** The body lines of one message (content, tool calls and results), unindented. */
function body(m: Message, options: TranscriptOptions): string[] {
  const lines: string[] = [];
  if (m.role === "tool") {
    const name = m.toolName ?? "tool";
    const id = m.toolCallId === null ? "" : ` (${m.toolCallId})`;
    lines.push(`${MARKERS.toolResult} ${name}${id}: ${clip(m.originalContent, options.maxJson)}`);
  } else if (m.originalContent !== "") {
    lines.push(...m.originalContent.split("\n"));
  }
  for (const call of m.toolCalls) {
    lines.push(`${MARKERS.toolCall} ${call.toolName}(${json(call.arguments, options.maxJson)})`);
    if (call.result !== null)
      lines.push(`  ${MARKERS.toolResult} ${json(call.result, options.maxJson)}`);
  }
  return lines;
}

/**
 * A readable transcript: a header, then one block per message with its UTC time, role,
 * `⚑` when flagged, tool calls (`→ tool(args)`), tool results (`←`) and, under an assistant
 * message that ended a turn, the totals of its trace (`∑`). A date line starts each new day.
 */
export function renderTranscript(
  conversation: Conversation,
  messages: Message[],
  traces: Map<string, TurnTrace>,
  options: TranscriptOptions,
): string {
  const out = [...header(conversation, messages.length), ""];
  const roleWidth = Math.max(4, ...messages.map((m) => m.role.length + (m.isFlagged ? 2 : 0)));
  const indent = " ".repeat(8 + 2 + roleWidth + 2);
  let day = "";
  for (const m of messages) {
    const date = formatDate(m.timestamp);
    if (date !== day) {
      out.push(`── ${date} ──`);
      day = date;
    }
    const role = (m.isFlagged ? `${m.role} ${MARKERS.flagged}` : m.role).padEnd(roleWidth);
    const lines = body(m, options);
    const trace = traces.get(m.id);
    if (trace) lines.push(traceSummary(trace));
    const [first = "", ...rest] = lines;
    out.push(`${formatTime(m.timestamp)}  ${role}  ${first}`.trimEnd());
    for (const line of rest) out.push(`${indent}${line}`.trimEnd());
  }
  if (messages.length === 0) out.push("(no messages)");
  out.push(
    "",
    `${MARKERS.flagged} flagged   ${MARKERS.toolCall} tool call   ${MARKERS.toolResult} tool result   ${MARKERS.trace} turn trace totals   (times UTC)`,
  );
  return out.map(visible).join("\n");
}
