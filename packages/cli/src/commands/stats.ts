import type { MessageStore, TurnTrace } from "@message-store/core";
import { addCosts, callsCostUsd } from "../format/calls-cost.js";
import { formatCost, formatCount, formatCountOf, formatMs } from "../format/numbers.js";
import { renderKeyValues, renderTable } from "../format/table.js";
import { formatTimestamp } from "../format/time.js";
import { withStore } from "../open-store.js";
import { writeLine } from "../output.js";
import { describeStore, type StoreConfigObject } from "../store-spec.js";
import { conversationPages, LIVE_ONLY, messagePages, tracePages } from "../walk.js";

/** Usage of one agent over all its traces. */
export interface AgentUsage {
  agentId: string;
  turns: number;
  totalTokens: number;
  promptTokens: number;
  completionTokens: number;
  /** Sum of the priced calls' `costUsd`; `null` when none of the agent's calls was priced. */
  costUsd: number | null;
  avgLatencyMs: number;
}

/** What `stats` reports (also its `--json` output). */
export interface StoreStats {
  conversations: number;
  users: number;
  messages: number;
  flaggedMessages: number;
  messagesByRole: Record<string, number>;
  firstMessageAt: number | null;
  lastMessageAt: number | null;
  turnTraces: number;
  totalTokens: number;
  /** Sum of the priced calls' `costUsd`; `null` when no call was priced. */
  costUsd: number | null;
  turnsWithErrors: number;
  topAgents: AgentUsage[];
}

function addTrace(agents: Map<string, AgentUsage & { latencySum: number }>, t: TurnTrace) {
  let a = agents.get(t.agentId);
  if (!a) {
    a = {
      agentId: t.agentId,
      turns: 0,
      totalTokens: 0,
      promptTokens: 0,
      completionTokens: 0,
      costUsd: null,
      avgLatencyMs: 0,
      latencySum: 0,
    };
    agents.set(t.agentId, a);
  }
  a.turns++;
  a.totalTokens += t.totalTokens;
  a.latencySum += t.totalLatencyMs;
  for (const call of t.llmCalls) {
    a.promptTokens += call.promptTokens;
    a.completionTokens += call.completionTokens;
  }
  a.costUsd = addCosts(a.costUsd, callsCostUsd(t.llmCalls));
}

/** Reads the whole store once (conversations, their messages, all traces) and sums it up. */
export async function collectStats(
  store: MessageStore,
  top: number,
  pageSize = 1000,
): Promise<StoreStats> {
  const users = new Set<string>();
  const stats: StoreStats = {
    conversations: 0,
    users: 0,
    messages: 0,
    flaggedMessages: 0,
    messagesByRole: {},
    firstMessageAt: null,
    lastMessageAt: null,
    turnTraces: 0,
    totalTokens: 0,
    costUsd: null,
    turnsWithErrors: 0,
    topAgents: [],
  };
  for await (const page of conversationPages(store, pageSize, undefined, LIVE_ONLY)) {
    for (const conversation of page) {
      stats.conversations++;
      users.add(conversation.userId);
      for await (const messages of messagePages(store, conversation.id, pageSize, LIVE_ONLY)) {
        for (const m of messages) {
          stats.messages++;
          if (m.isFlagged) stats.flaggedMessages++;
          stats.messagesByRole[m.role] = (stats.messagesByRole[m.role] ?? 0) + 1;
          stats.firstMessageAt = Math.min(stats.firstMessageAt ?? m.timestamp, m.timestamp);
          stats.lastMessageAt = Math.max(stats.lastMessageAt ?? m.timestamp, m.timestamp);
        }
      }
    }
  }
  stats.users = users.size;
  const agents = new Map<string, AgentUsage & { latencySum: number }>();
  for await (const traces of tracePages(store, LIVE_ONLY, pageSize)) {
    for (const t of traces) {
      stats.turnTraces++;
      stats.totalTokens += t.totalTokens;
      if (t.errors.length > 0) stats.turnsWithErrors++;
      addTrace(agents, t);
    }
  }
  stats.topAgents = [...agents.values()]
    .sort((a, b) => b.totalTokens - a.totalTokens || (a.agentId < b.agentId ? -1 : 1))
    .slice(0, top)
    .map(({ latencySum, ...a }) => ({
      ...a,
      avgLatencyMs: Math.round((latencySum / a.turns) * 1e3) / 1e3,
    }));
  stats.costUsd = [...agents.values()].reduce<number | null>(
    (s, a) => addCosts(s, a.costUsd),
    null,
  );
  return stats;
}

/** The human-readable report. */
export function renderStats(label: string, s: StoreStats): string {
  const roles = Object.entries(s.messagesByRole)
    .sort(([, a], [, b]) => b - a)
    .map(([role, n]) => `${role} ${formatCount(n)}`)
    .join(", ");
  const overview = renderKeyValues([
    ["store", label],
    ["conversations", `${formatCount(s.conversations)} (${formatCountOf(s.users, "user")})`],
    ["messages", `${formatCount(s.messages)}${roles ? ` (${roles})` : ""}`],
    ["flagged messages", formatCount(s.flaggedMessages)],
    ["first message", s.firstMessageAt === null ? "-" : formatTimestamp(s.firstMessageAt)],
    ["last message", s.lastMessageAt === null ? "-" : formatTimestamp(s.lastMessageAt)],
    ["turn traces", `${formatCount(s.turnTraces)} (${formatCount(s.turnsWithErrors)} with errors)`],
    ["tokens", formatCount(s.totalTokens)],
    ["cost", formatCost(s.costUsd)],
  ]);
  if (s.topAgents.length === 0) return `${overview}\n\nno turn traces yet`;
  const agents = renderTable(
    ["agent", "turns", "tokens", "prompt", "completion", "cost", "avg latency"],
    s.topAgents.map((a) => [
      a.agentId,
      formatCount(a.turns),
      formatCount(a.totalTokens),
      formatCount(a.promptTokens),
      formatCount(a.completionTokens),
      formatCost(a.costUsd),
      formatMs(a.avgLatencyMs),
    ]),
    ["left", "right", "right", "right", "right", "right", "right"],
  );
  return `${overview}\n\ntop agents by tokens\n${agents}`;
}

/** `message-store stats [--top n] [--json]`. */
export async function statsCommand(
  config: StoreConfigObject,
  options: { top: number; json: boolean },
  io: { stdout: NodeJS.WritableStream },
): Promise<void> {
  const stats = await withStore(config, (store) => collectStats(store, options.top), {
    create: false,
  });
  await writeLine(
    io.stdout,
    options.json ? JSON.stringify(stats, null, 2) : renderStats(describeStore(config), stats),
  );
}
