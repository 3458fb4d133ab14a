import { type Conversation, DEFAULT_KEEP_CHARS, DEFAULT_MAX_CHARS } from "@message-store/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPORT_FORMAT, EXPORT_VERSION } from "../../src/ndjson.js";
import type {
  ApiError,
  ContextWindow,
  ConversationList,
  ExpensiveTurns,
  MessageView,
  SimilarMessages,
  StudioInfo,
  TranscriptPage,
  TurnView,
  UsageView,
} from "../../src/studio/api-types.js";
import { tempDir } from "../support/cli.js";
import {
  apiCall as call,
  apiJson as json,
  type RunningStudio,
  STUDIO_BACKENDS,
  type StudioPair,
  startStudio,
  startStudioPair,
} from "../support/studio.js";
import { REFUND, type StudioSeed } from "../support/studio-seed.js";

const PASSWORD = "s3cret-studio-pw";

function flag(
  studio: RunningStudio,
  id: string,
  flagged: boolean,
  headers: Record<string, string> = {},
) {
  return call(studio, `/api/actions/messages/${id}/flag`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ flagged }),
  });
}

describe.each(STUDIO_BACKENDS)("studio API on $name", (backend) => {
  const tmp = tempDir();
  let seed: StudioSeed;
  let readOnly: RunningStudio;
  let writable: RunningStudio;

  let pair: StudioPair | undefined;

  beforeAll(async () => {
    pair = await startStudioPair(backend.storage, tmp.dir, {
      prefix: "studio",
      password: PASSWORD,
    });
    ({ seed, readOnly, writable } = pair);
  });
  afterAll(async () => {
    await pair?.stop();
    tmp.remove();
  });

  it("prints a 127.0.0.1 URL with a random token and says whether writes are allowed", () => {
    expect(readOnly.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]{32}$/);
    expect(readOnly.token).not.toBe(writable.token);
    expect(readOnly.output()).toContain("(read-only)");
    expect(writable.output()).toContain("(writes allowed)");
  });

  it("never sends the DSN password to the page", async () => {
    const info = await json<StudioInfo>(readOnly, "/api/info");
    expect(info).toMatchObject({ allowWrites: false, semanticSearch: true });
    const everything = [
      JSON.stringify(info),
      await (await call(readOnly, "/")).text(),
      readOnly.output(),
    ].join("\n");
    expect(everything).not.toContain(PASSWORD);
    if (info.storage === "postgres") expect(info.store).toContain(":***@");
  });

  it("read-only: flag and export are refused and nothing changes", async () => {
    const refused = await flag(readOnly, REFUND.toFlagId, true);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as ApiError).error.code).toBe("READ_ONLY");
    const exported = await call(
      readOnly,
      `/api/actions/conversations/${REFUND.conversationId}/export`,
    );
    expect(exported.status).toBe(403);
    const page = await json<TranscriptPage>(
      readOnly,
      `/api/conversations/${REFUND.conversationId}/messages`,
    );
    expect(page.items.find((m) => m.id === REFUND.toFlagId)?.isFlagged).toBe(false);
  });

  it("conversations: all by id, a user's by recent activity, an agent's by recent turn; paged", async () => {
    const all: Conversation[] = [];
    let cursor: string | null = null;
    do {
      const page: ConversationList = await json<ConversationList>(
        readOnly,
        `/api/conversations?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(page.order).toBe("id");
      expect(page.items.length).toBeLessThanOrEqual(7);
      all.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(all.map((c) => c.id)).toEqual(seed.conversations.map((c) => c.id).sort());

    const ana = await json<ConversationList>(readOnly, "/api/conversations?user=u-ana");
    expect(ana.order).toBe("recent-activity");
    expect(ana.items.length).toBe(seed.conversations.filter((c) => c.userId === "u-ana").length);
    const activity = ana.items.map((c) => c.lastActivityAt);
    expect(activity).toEqual([...activity].sort((a, b) => b - a));

    const travel = await json<ConversationList>(
      readOnly,
      "/api/conversations?agent=travel-bot&limit=200",
    );
    expect(travel.order).toBe("recent-turn");
    const expected = [...seed.traces]
      .filter((t) => t.agentId === "travel-bot")
      .sort((a, b) => b.timestamp - a.timestamp || (a.id < b.id ? 1 : -1))
      .map((t) => t.conversationId);
    expect(travel.items.map((c) => c.id)).toEqual([...new Set(expected)]);

    const both = await call(readOnly, "/api/conversations?user=u-ana&agent=travel-bot");
    expect(both.status).toBe(400);
  });

  it("transcript: every message in order across pages, each trace exactly once, no embeddings", async () => {
    const messages: MessageView[] = [];
    const traceIds: string[] = [];
    let cursor: string | null = null;
    do {
      const page: TranscriptPage = await json<TranscriptPage>(
        readOnly,
        `/api/conversations/${REFUND.conversationId}/messages?limit=3${cursor ? `&cursor=${cursor}` : ""}`,
      );
      messages.push(...page.items);
      traceIds.push(...page.traces.map((t) => t.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    const own = seed.messages.filter((m) => m.conversationId === REFUND.conversationId);
    expect(messages.map((m) => m.id)).toEqual(own.map((m) => m.id));
    expect(messages.find((m) => m.id === REFUND.flaggedId)?.isFlagged).toBe(true);
    expect(messages.every((m) => !("embedding" in m) && m.embeddingDims === 6)).toBe(true);
    expect(traceIds.sort()).toEqual(
      seed.traces
        .filter((t) => t.conversationId === REFUND.conversationId)
        .map((t) => t.id)
        .sort(),
    );
    const bad = await call(
      readOnly,
      `/api/conversations/${REFUND.conversationId}/messages?cursor=xyz`,
    );
    expect(bad.status).toBe(400);
  });

  it("context window: flagged left out, long answers compressed next to the full text", async () => {
    const window = await json<ContextWindow>(
      readOnly,
      `/api/conversations/${REFUND.conversationId}/context?n=20&maxChars=400&keepChars=100`,
    );
    const ids = window.context.map((m) => m.id);
    expect(ids).not.toContain(REFUND.flaggedId);
    expect(window.full.map((m) => m.id)).toEqual(ids);
    const compressed = window.context.find((m) => m.id === REFUND.longAnswerId)!;
    const full = window.full.find((m) => m.id === REFUND.longAnswerId)!;
    expect(compressed.originalContent.length).toBeLessThan(full.originalContent.length);
    expect(full.originalContent).toBe(
      seed.messages.find((m) => m.id === REFUND.longAnswerId)!.originalContent,
    );
  });

  it("context window: compressed by default as the library's compress: true; compress=false is whole", async () => {
    const info = await json<StudioInfo>(readOnly, "/api/info");
    expect(info.compressDefaults).toEqual({
      maxChars: DEFAULT_MAX_CHARS,
      keepChars: DEFAULT_KEEP_CHARS,
    });
    const path = `/api/conversations/${REFUND.conversationId}/context`;
    const byDefault = await json<ContextWindow>(readOnly, path);
    expect(byDefault.compress).toEqual(info.compressDefaults);
    const full = seed.messages.find((m) => m.id === REFUND.longAnswerId)!.originalContent;
    const compressed = byDefault.context.find((m) => m.id === REFUND.longAnswerId)!.originalContent;
    expect(full.length).toBeGreaterThan(DEFAULT_MAX_CHARS);
    expect(compressed.startsWith(full.slice(0, DEFAULT_KEEP_CHARS))).toBe(true);
    expect(compressed.startsWith(full.slice(0, DEFAULT_KEEP_CHARS + 1))).toBe(false);
    const whole = await json<ContextWindow>(readOnly, `${path}?compress=false`);
    expect(whole.compress).toBeNull();
    expect(whole.context).toEqual(whole.full);
  });

  it("turn: the whole trace with its totals; 404 for a message without one", async () => {
    const view = await json<TurnView>(readOnly, `/api/turns/${REFUND.toolTurnMessageId}`);
    const seeded = seed.traces.find((t) => t.messageId === REFUND.toolTurnMessageId)!;
    expect(view.trace.llmCalls.length).toBe(seeded.llmCalls!.length);
    expect(view.trace.toolTraces[0]!.generationAttempts.length).toBe(2);
    expect(view.summary.totalTokens).toBe(seeded.totalTokens);
    expect(view.summary.costUsd).toBeCloseTo(
      seeded.llmCalls!.reduce((s, c) => s + (c.costUsd ?? 0), 0),
      9,
    );
    expect(view.message?.id).toBe(REFUND.toolTurnMessageId);
    expect((await call(readOnly, `/api/turns/${REFUND.toFlagId}`)).status).toBe(404);
  });

  it("usage: summarizeUsage buckets over the window, and the costliest turns", async () => {
    const until = seed.now + 1;
    const since = until - 7 * 86_400_000;
    const inWindow = seed.traces.filter((t) => t.timestamp >= since && t.timestamp < until);
    const usage = await json<UsageView>(
      readOnly,
      `/api/usage?since=${since}&until=${until}&bucket=day`,
    );
    expect(usage.buckets.reduce((s, b) => s + b.turns, 0)).toBe(inWindow.length);
    expect(usage.buckets.reduce((s, b) => s + b.totalTokens, 0)).toBe(
      inWindow.reduce((s, t) => s + t.totalTokens, 0),
    );
    const travel = await json<UsageView>(
      readOnly,
      `/api/usage?since=${since}&until=${until}&bucket=hour&agent=travel-bot`,
    );
    expect(travel.buckets.reduce((s, b) => s + b.turns, 0)).toBe(
      inWindow.filter((t) => t.agentId === "travel-bot").length,
    );
    const lastDay = await json<UsageView>(
      readOnly,
      `/api/usage?since=${until - 86_400_000}&until=${until}&bucket=hour`,
    );
    expect(lastDay.buckets.reduce((s, b) => s + b.turns, 0)).toBe(
      inWindow.filter((t) => t.timestamp >= until - 86_400_000).length,
    );

    const expensive = await json<ExpensiveTurns>(
      readOnly,
      `/api/usage/expensive?since=${since}&until=${until}&limit=3`,
    );
    const cost = (t: (typeof inWindow)[number]) =>
      t.llmCalls!.reduce((s, c) => s + (c.costUsd ?? 0), 0);
    const top = [...inWindow].sort((a, b) => cost(b) - cost(a)).slice(0, 3);
    expect(expensive.items.map((t) => t.id)).toEqual(top.map((t) => t.id));
    expect(expensive).toMatchObject({ scanned: inWindow.length, truncated: false });
    expect((await call(readOnly, `/api/usage?bucket=week`)).status).toBe(400);
    expect((await call(readOnly, `/api/usage?since=10&until=5`)).status).toBe(400);
  });

  it("similar messages: by the stored embedding of a message, within a scope", async () => {
    const similar = await json<SimilarMessages>(
      readOnly,
      `/api/search/similar?message=${REFUND.toFlagId}&scope=conversation`,
    );
    expect(similar.hits[0]!.message.id).toBe(REFUND.toFlagId);
    expect(similar.hits[0]!.score).toBeCloseTo(1, 6);
    expect(similar.hits.every((h) => h.message.conversationId === REFUND.conversationId)).toBe(
      true,
    );
    // searchMessages skips flagged messages.
    expect(similar.hits.map((h) => h.message.id)).not.toContain(REFUND.flaggedId);
    const everywhere = await json<SimilarMessages>(
      readOnly,
      `/api/search/similar?message=${REFUND.toFlagId}&scope=all&limit=200`,
    );
    expect(new Set(everywhere.hits.map((h) => h.message.conversationId)).size).toBeGreaterThan(1);
    expect((await call(readOnly, "/api/search/similar?message=nope")).status).toBe(404);
  });

  it("writes allowed: flag drops the message from the context window, unflag brings it back", async () => {
    const contextIds = async () =>
      (
        await json<ContextWindow>(writable, `/api/conversations/${REFUND.conversationId}/context`)
      ).context.map((m) => m.id);
    expect(await contextIds()).toContain(REFUND.toFlagId);
    const flagged = await flag(writable, REFUND.toFlagId, true);
    expect(flagged.status).toBe(200);
    expect(((await flagged.json()) as MessageView).isFlagged).toBe(true);
    expect(await contextIds()).not.toContain(REFUND.toFlagId);
    expect((await flag(writable, REFUND.toFlagId, false)).status).toBe(200);
    expect(await contextIds()).toContain(REFUND.toFlagId);
    expect((await flag(writable, "no-such-message", true)).status).toBe(404);
    const bad = await call(writable, `/api/actions/messages/${REFUND.toFlagId}/flag`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    expect(bad.status).toBe(400);
  });

  it("writes allowed: exports a conversation as NDJSON (header, records, footer)", async () => {
    const response = await call(
      writable,
      `/api/actions/conversations/${REFUND.conversationId}/export`,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toContain(
      `conversation-${REFUND.conversationId}.ndjson`,
    );
    const lines = (await response.text())
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    const messages = seed.messages.filter((m) => m.conversationId === REFUND.conversationId);
    const traces = seed.traces.filter((t) => t.conversationId === REFUND.conversationId);
    expect(lines[0]).toEqual({ type: "header", format: EXPORT_FORMAT, version: EXPORT_VERSION });
    expect(lines.at(-1)).toEqual({
      type: "footer",
      conversations: 1,
      messages: messages.length,
      turnTraces: traces.length,
      checkpoints: 0,
    });
    expect(lines.filter((l) => l.type === "message").map((l) => l.data.id)).toEqual(
      messages.map((m) => m.id),
    );
  });

  it("unknown endpoints and ids: 404 with a JSON error", async () => {
    const none = await call(readOnly, "/api/nope");
    expect(none.status).toBe(404);
    expect(((await none.json()) as ApiError).error.code).toBe("NOT_FOUND");
    expect((await call(readOnly, "/api/conversations/nope")).status).toBe(404);
  });

  it("stops on SIGTERM with exit code 0", async () => {
    const spare = await startStudio(["--store", "json::memory:"], { cwd: tmp.dir });
    expect(await spare.stop()).toBe(0);
  });
});
