import type { Conversation, Message, TurnTrace } from "@message-store/core";
import { canonicalJson } from "../ndjson.js";
import { callsCostUsd } from "./calls-cost.js";
import { formatCost, formatCount, formatCountOf, formatMs } from "./numbers.js";
import { formatDate, formatTime, formatTimestamp } from "./time.js";
import { visible } from "./visible.js";

/** Markers used in a transcript (also printed as its legend). */
export const MARKERS = {
  flagged: "⚑",
  deleted: "✗",
  toolCall: "→",
  toolResult: "←",
  trace: "∑",
} as const;

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

/** One line of totals for a turn: tokens, LLM calls, tool runs, latency, cost, errors. */
export function traceSummary(t: TurnTrace): string {
  const prompt = t.llmCalls.reduce((s, c) => s + c.promptTokens, 0);
  const completion = t.llmCalls.reduce((s, c) => s + c.completionTokens, 0);
  const cost = callsCostUsd(t.llmCalls);
  const models = [...new Set(t.llmCalls.map((c) => c.model))];
  const parts = [
    formatCountOf(t.totalTokens, "token") +
      (prompt + completion > 0
        ? ` (${formatCount(prompt)} prompt + ${formatCount(completion)} completion)`
        : ""),
    formatCountOf(t.llmCalls.length, "LLM call") +
      (models.length > 0 ? ` (${models.join(", ")})` : ""),
    ...(t.toolTraces.length > 0 ? [formatCountOf(t.toolTraces.length, "tool run")] : []),
    formatMs(t.totalLatencyMs),
  ];
  if (cost !== null) parts.push(formatCost(cost));
  if (t.errors.length > 0) parts.push(formatCountOf(t.errors.length, "error"));
  return `${MARKERS.trace} turn: ${parts.join(" · ")}`;
}

function header(c: Conversation, messageCount: number): string[] {
  const facts = [
    `user ${c.userId}`,
    ...(c.tenantId === null ? [] : [`tenant ${c.tenantId}`]),
    ...(c.agentId === null ? [] : [`agent ${c.agentId}`]),
    `status ${c.status}`,
    `created ${formatTimestamp(c.createdAt)}`,
    ...(c.deletedAt === null ? [] : [`${MARKERS.deleted} deleted ${formatTimestamp(c.deletedAt)}`]),
    formatCountOf(messageCount, "message"),
    ...(c.tags.length > 0 ? [`tags: ${c.tags.join(", ")}`] : []),
  ];
  return [
    `conversation ${JSON.stringify(c.id)}${c.title === null ? "" : ` — ${c.title}`}`,
    facts.join(" · "),
    ...(c.description === null ? [] : c.description.split("\n")),
  ];
}

/** The role column: the role, then `⚑` when flagged and `✗` when soft-deleted. */
function roleLabel(m: Message): string {
  return [
    m.role,
    ...(m.isFlagged ? [MARKERS.flagged] : []),
    ...(m.deletedAt === null ? [] : [MARKERS.deleted]),
  ].join(" ");
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
  if (m.role === "tool" && m.toolArguments !== null)
    lines.push(`  arguments: ${json(m.toolArguments, options.maxJson)}`);
  for (const call of m.toolCalls) {
    lines.push(`${MARKERS.toolCall} ${call.toolName}(${json(call.arguments, options.maxJson)})`);
    if (call.result !== null)
      lines.push(`  ${MARKERS.toolResult} ${json(call.result, options.maxJson)}`);
  }
  if (m.tags.length > 0) lines.push(`tags: ${m.tags.join(", ")}`);
  return lines;
}

/**
 * A readable transcript: a header, then one block per message with its UTC time, role,
 * `⚑` when flagged, `✗` when soft-deleted, tool calls (`→ tool(args)`), tool results (`←`) and, under an assistant
 * message that ended a turn, the totals of its trace (`∑`). A date line starts each new day.
 */
export function renderTranscript(
  conversation: Conversation,
  messages: Message[],
  traces: Map<string, TurnTrace>,
  options: TranscriptOptions,
): string {
  const out = [...header(conversation, messages.length), ""];
  const roleWidth = Math.max(4, ...messages.map((m) => roleLabel(m).length));
  const indent = " ".repeat(8 + 2 + roleWidth + 2);
  let day = "";
  for (const m of messages) {
    const date = formatDate(m.timestamp);
    if (date !== day) {
      out.push(`── ${date} ──`);
      day = date;
    }
    const role = roleLabel(m).padEnd(roleWidth);
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
    `${MARKERS.flagged} flagged   ${MARKERS.deleted} soft-deleted   ${MARKERS.toolCall} tool call   ${MARKERS.toolResult} tool result   ${MARKERS.trace} turn trace totals   (times UTC)`,
  );
  return out.map(visible).join("\n");
}
