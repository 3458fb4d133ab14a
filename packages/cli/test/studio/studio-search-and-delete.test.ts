import type { Conversation } from "@message-store/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  ApiError,
  ContextWindow,
  ConversationAction,
  ConversationList,
  StudioInfo,
  TextSearchPage,
  TranscriptPage,
} from "../../src/studio/api-types.js";
import { tempDir } from "../support/cli.js";
import {
  apiCall as call,
  apiJson as json,
  type RunningStudio,
  STUDIO_BACKENDS,
  type StudioPair,
  startStudioPair,
} from "../support/studio.js";
import { REFUND, type StudioSeed } from "../support/studio-seed.js";

/** `POST /api/actions/conversations/:id/<action>` with a JSON body. */
function act(
  studio: RunningStudio,
  id: string,
  action: "delete" | "restore",
  init: RequestInit = {},
) {
  return call(studio, `/api/actions/conversations/${encodeURIComponent(id)}/${action}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: "{}",
    ...init,
  });
}

/** Every hit of a text search, page by page. */
async function searchAll(studio: RunningStudio, query: string): Promise<TextSearchPage["items"]> {
  const items: TextSearchPage["items"] = [];
  let cursor: string | null = null;
  do {
    const page: TextSearchPage = await json<TextSearchPage>(
      studio,
      `/api/search/text?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return items;
}

describe.each(STUDIO_BACKENDS)("studio text search and soft delete on $name", (backend) => {
  const tmp = tempDir();
  let seed: StudioSeed;
  let readOnly: RunningStudio;
  let writable: RunningStudio;

  let pair: StudioPair | undefined;

  beforeAll(async () => {
    pair = await startStudioPair(backend.storage, tmp.dir, { prefix: "studio_search" });
    ({ seed, readOnly, writable } = pair);
  });
  afterAll(async () => {
    await pair?.stop();
    tmp.remove();
  });

  it("says the store offers text search and soft delete", async () => {
    const info = await json<StudioInfo>(readOnly, "/api/info");
    expect(info.features).toEqual({ textSearch: true, softDelete: true });
  });

  it("text search: titles and contents, ASCII case-insensitively, most recent activity first, with a snippet", async () => {
    const [refund, ...others] = await searchAll(readOnly, "q=rua%20AUGUSTA");
    expect(others).toEqual([]);
    expect(refund!.conversation.id).toBe(REFUND.conversationId);
    expect(refund!.titleMatch).toBe(false);
    expect(refund!.message?.id).toBe(`${REFUND.conversationId}-m6`); // the newest of two
    expect(refund!.snippet?.match).toBe("Rua Augusta");
    expect(refund!.message && "embedding" in refund!.message).toBe(false);

    const lisbon = await searchAll(readOnly, "q=lisbon&limit=3");
    const expected = seed.conversations.filter((c) =>
      seed.messages.some(
        (m) => m.conversationId === c.id && m.originalContent.toLowerCase().includes("lisbon"),
      ),
    );
    expect(lisbon.map((h) => h.conversation.id).sort()).toEqual(expected.map((c) => c.id).sort());
    expect(lisbon.every((h) => h.titleMatch)).toBe(true);
    const activity = lisbon.map((h) => h.conversation.lastActivityAt);
    expect(activity).toEqual([...activity].sort((a, b) => b - a));

    const ana = await searchAll(readOnly, "q=here%20is%20what&user=u-ana&limit=4");
    const withText = seed.conversations.filter(
      (c) =>
        c.userId === "u-ana" &&
        seed.messages.some(
          (m) =>
            m.conversationId === c.id && m.originalContent.toLowerCase().includes("here is what"),
        ),
    );
    expect(ana.map((h) => h.conversation.id).sort()).toEqual(withText.map((c) => c.id).sort());
    expect(new Set(ana.map((h) => h.conversation.userId))).toEqual(new Set(["u-ana"]));
    expect(await searchAll(readOnly, "q=no%20such%20words")).toEqual([]);
  });

  it("text search finds soft-deleted messages too, marked", async () => {
    const [hit, ...rest] = await searchAll(readOnly, "q=4111%201111");
    expect(rest).toEqual([]);
    expect(hit!.message?.id).toBe(REFUND.deletedId);
    expect(hit!.message?.deletedAt).not.toBeNull();
  });

  it("text search: 400 without q, 401 without the token", async () => {
    const missing = await call(readOnly, "/api/search/text");
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as ApiError).error.message).toContain('"q"');
    expect((await call(readOnly, "/api/search/text?q=x", { auth: false })).status).toBe(401);
  });

  it("the transcript includes soft-deleted messages with their deletedAt; the context window never does", async () => {
    const page = await json<TranscriptPage>(
      readOnly,
      `/api/conversations/${REFUND.conversationId}/messages`,
    );
    const deleted = page.items.filter((m) => m.deletedAt !== null).map((m) => m.id);
    expect(deleted).toEqual([REFUND.deletedId]);
    const window = await json<ContextWindow>(
      readOnly,
      `/api/conversations/${REFUND.conversationId}/context`,
    );
    expect(window.full.map((m) => m.id)).not.toContain(REFUND.deletedId);
  });

  it("read-only or without the token: delete and restore are refused and nothing changes", async () => {
    const target = seed.conversations[5]!.id;
    for (const action of ["delete", "restore"] as const) {
      const refused = await act(readOnly, target, action);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as ApiError).error.code).toBe("READ_ONLY");
      const anonymous = await fetch(
        `${writable.origin}/api/actions/conversations/${target}/${action}`,
        { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" },
      );
      expect(anonymous.status).toBe(401);
    }
    const conversation = await json<Conversation>(readOnly, `/api/conversations/${target}`);
    expect(conversation.deletedAt).toBeNull();
  });

  it("writes allowed: a cross-site form POST is refused (CSRF), and only JSON is accepted", async () => {
    const target = seed.conversations[5]!.id;
    const auth = `Bearer ${writable.token}`;
    const path = `${writable.origin}/api/actions/conversations/${target}/delete`;
    const forged = await fetch(path, {
      method: "POST",
      headers: {
        Authorization: auth,
        Origin: "http://evil.example",
        "Sec-Fetch-Site": "cross-site",
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: "x=1",
    });
    expect(forged.status).toBe(403);
    const notJson = await fetch(path, {
      method: "POST",
      headers: { Authorization: auth, "Content-Type": "application/xml" },
      body: "{}",
    });
    expect(notJson.status).toBe(415);
    const conversation = await json<Conversation>(writable, `/api/conversations/${target}`);
    expect(conversation.deletedAt).toBeNull();
  });

  it("writes allowed: soft-deletes a conversation with its messages, marks it everywhere, restores it", async () => {
    const target = seed.conversations[5]!;
    const deleted = await act(writable, target.id, "delete");
    expect(deleted.status).toBe(200);
    const body = (await deleted.json()) as ConversationAction;
    expect(body.changed).toBe(true);
    expect(body.conversation.deletedAt).not.toBeNull();
    expect(
      ((await (await act(writable, target.id, "delete")).json()) as ConversationAction).changed,
    ).toBe(false);

    const shown = await json<Conversation>(writable, `/api/conversations/${target.id}`);
    expect(shown.deletedAt).toBe(body.conversation.deletedAt);
    const list = await json<ConversationList>(
      writable,
      `/api/conversations?user=${target.userId}&limit=200`,
    );
    expect(list.items.find((c) => c.id === target.id)?.deletedAt).toBe(shown.deletedAt);
    const transcript = await json<TranscriptPage>(
      writable,
      `/api/conversations/${target.id}/messages`,
    );
    expect(transcript.items.length).toBeGreaterThan(0);
    expect(transcript.items.every((m) => m.deletedAt === shown.deletedAt)).toBe(true);
    const context = await json<ContextWindow>(writable, `/api/conversations/${target.id}/context`);
    expect(context.context).toEqual([]);
    const found = await searchAll(writable, `q=${encodeURIComponent(target.title!)}`);
    expect(found.find((h) => h.conversation.id === target.id)?.conversation.deletedAt).toBe(
      shown.deletedAt,
    );

    const restored = await act(writable, target.id, "restore");
    expect(restored.status).toBe(200);
    const after = (await restored.json()) as ConversationAction;
    expect(after).toMatchObject({
      changed: true,
      conversation: { id: target.id, deletedAt: null },
    });
    const back = await json<TranscriptPage>(writable, `/api/conversations/${target.id}/messages`);
    expect(back.items.every((m) => m.deletedAt === null)).toBe(true);
    expect(
      (await json<ContextWindow>(writable, `/api/conversations/${target.id}/context`)).context
        .length,
    ).toBe(back.items.length);
    expect((await act(writable, "no-such-conversation", "delete")).status).toBe(404);
  });
});
