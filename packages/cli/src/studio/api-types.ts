/**
 * The studio's HTTP API: what each endpoint answers, declared once for the server (which
 * builds these) and the page (which reads them). Every endpoint is one or two store calls.
 */
import type { Conversation, Message, TurnTrace, UsageBucket } from "@message-store/core";

/** A message as sent to the page: the embedding vector is replaced by its length. */
export type MessageView = Omit<Message, "embedding"> & { embeddingDims: number | null };

/** `GET /api/info`: the store (label without secrets) and what this server allows. */
export interface StudioInfo {
  version: string;
  /** `describeStore` of the spec, passwords replaced by `***`. */
  store: string;
  storage: string;
  semanticSearch: boolean;
  /** Started with `--allow-writes`: flag/unflag and export are offered. */
  allowWrites: boolean;
  /**
   * Optional parts of the contract this store offers: `searchConversations` (the search box of
   * the conversations view) and soft delete (deleted records shown marked; delete and restore
   * of a conversation with `--allow-writes`).
   */
  features: { textSearch: boolean; softDelete: boolean };
  /** What the library's `compress: true` means (core's defaults): the context view starts there. */
  compressDefaults: { maxChars: number; keepChars: number };
}

/** How a conversation list is ordered (it depends on the filter; see `GET /api/conversations`). */
export type ConversationOrder = "id" | "recent-activity" | "recent-turn";

/** `GET /api/conversations`: one page. */
export interface ConversationList {
  order: ConversationOrder;
  items: Conversation[];
  nextCursor: string | null;
}

/** Totals of one turn, enough for a row in a list. */
export interface TraceSummary {
  id: string;
  messageId: string;
  conversationId: string;
  agentId: string;
  userId: string | null;
  timestamp: number;
  totalTokens: number;
  promptTokens: number;
  completionTokens: number;
  /** Sum of the priced LLM calls' `costUsd`; `null` when no call was priced (unknown, not $0). */
  costUsd: number | null;
  totalLatencyMs: number;
  llmCalls: number;
  toolRuns: number;
  errors: number;
  models: string[];
}

/** `GET /api/conversations/:id/messages`: a transcript page and the traces of its turns. */
export interface TranscriptPage {
  items: MessageView[];
  nextCursor: string | null;
  /** Traces whose timestamp falls in this page's span, keyed by the messages they belong to. */
  traces: TraceSummary[];
}

/** `GET /api/conversations/:id/context`: the context window, compressed and whole. */
export interface ContextWindow {
  n: number;
  /** The compression applied (the defaults filled in), or `null` with `compress=false`. */
  compress: { maxChars: number; keepChars: number } | null;
  /** What `getImmediateContext(id, n, { compress })` returns. */
  context: MessageView[];
  /** The same window without compression. */
  full: MessageView[];
}

/** `GET /api/traces`: one page of turns, newest first. */
export interface TraceList {
  items: TraceSummary[];
  nextCursor: string | null;
}

/** `GET /api/turns/:messageId`: the whole trace of a turn and the message that ended it. */
export interface TurnView {
  trace: TurnTrace;
  summary: TraceSummary;
  message: MessageView | null;
}

/** `GET /api/usage`: `summarizeUsage` buckets over `[since, until)`. */
export interface UsageView {
  since: number;
  until: number;
  bucket: "hour" | "day";
  buckets: UsageBucket[];
}

/** `GET /api/usage/expensive`: the costliest turns among the newest `scanned` of the window. */
export interface ExpensiveTurns {
  items: TraceSummary[];
  scanned: number;
  /** The window holds more turns than were scanned. */
  truncated: boolean;
}

/** `GET /api/agents`: agents seen in the newest turns. */
export interface AgentList {
  agents: string[];
  scannedTurns: number;
}

/** `GET /api/search/similar`: messages ranked by cosine similarity to one message's embedding. */
export interface SimilarMessages {
  source: MessageView;
  scope: "conversation" | "user" | "all";
  hits: { message: MessageView; score: number }[];
}

/** Text around a match: `match` is the matched text as stored, between its neighbours. */
export interface Snippet {
  before: string;
  match: string;
  after: string;
}

/** One conversation found by text search, and the newest of its messages that matched. */
export interface TextSearchRow {
  conversation: Conversation;
  titleMatch: boolean;
  message: MessageView | null;
  /** Where the text is in `message` (null with it). */
  snippet: Snippet | null;
}

/** `GET /api/search/text`: one page of `searchConversations`, most recent activity first. */
export interface TextSearchPage {
  items: TextSearchRow[];
  nextCursor: string | null;
}

/** `POST /api/actions/conversations/:id/delete` and `…/restore`: what changed, and the result. */
export interface ConversationAction {
  /** `false`: it was already soft-deleted (delete) or live (restore). */
  changed: boolean;
  /** The conversation as it is now, soft-deleted or not. */
  conversation: Conversation;
}

/** Every error the API answers with (status 4xx/5xx). */
export interface ApiError {
  error: { code: string; message: string };
}
