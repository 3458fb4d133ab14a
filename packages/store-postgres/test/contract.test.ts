import {
  ConnectionError,
  IntegrityError,
  MessageStore,
  NotFoundError,
  StoreClosedError,
} from "@message-store/core";
import { registerStorage } from "@message-store/core/adapter";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PostgresDriver, PostgresMessageStore, type PostgresStoreConfig } from "../src/index.js";
import { conversation, message, openStore, trace, useDatabase, withClient } from "./helpers.js";

const db = useDatabase("ms_pg_contract");
let store: PostgresMessageStore;

beforeAll(async () => {
  store = await openStore(db.url());
});
afterAll(async () => {
  await store?.close();
});
beforeEach(async () => {
  await withClient(db.url(), (c) => c.query("TRUNCATE conversations CASCADE"));
});

describe("conversations", () => {
  it("upserts, reads back with defaults and keeps lastMessageAt on upsert", async () => {
    const stored = await store.storeConversation(
      conversation("c1", "u1", { title: "t", tags: ["a"], metadata: { $x: { "a.b": 1 } } }),
    );
    expect(stored).toEqual({
      id: "c1",
      userId: "u1",
      tenantId: null,
      agentId: null,
      title: "t",
      description: null,
      status: "active",
      createdAt: 1000,
      updatedAt: 1000,
      deletedAt: null,
      tags: ["a"],
      metadata: { $x: { "a.b": 1 } },
      lastActivityAt: 1000,
    });
    expect(await store.getConversation("c1")).toEqual(stored);
    await store.storeMessage(message("m1", "c1", 5_000));
    const again = await store.storeConversation(conversation("c1", "u1", { updatedAt: 2_000 }));
    expect(again.lastActivityAt).toBe(5_000);
    expect(again.title).toBeNull();
    expect(await store.getConversation("nope")).toBeNull();
  });

  it("lists a user's conversations by activity desc, id asc (code-point order), with cursors", async () => {
    const ids = ["b", "a", "\u{1F600}", "\uFFFF", "c"];
    for (const id of ids) await store.storeConversation(conversation(id, "u1", { createdAt: 10 }));
    await store.storeConversation(conversation("late", "u1", { createdAt: 20 }));
    await store.storeConversation(conversation("other", "u2", { createdAt: 30 }));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await store.getConversationsByUserId("u1", { limit: 2, cursor });
      seen.push(...page.items.map((c) => c.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(["late", "a", "b", "c", "\uFFFF", "\u{1F600}"]);
    const all = await store.listConversations({});
    expect(all.items.map((c) => c.id)).toEqual([
      "a",
      "b",
      "c",
      "late",
      "other",
      "\uFFFF",
      "\u{1F600}",
    ]);
    const mine = await store.listConversations({ userId: "u2" });
    expect(mine.items.map((c) => c.id)).toEqual(["other"]);
  });

  it("deletes with cascade and reports absence", async () => {
    await store.storeConversation(conversation("c1"));
    await store.storeConversation(conversation("c2"));
    await store.storeMessages([message("m1", "c1", 1), message("m2", "c2", 1)]);
    await store.storeTurnTrace(trace("t1", "m1", "c1"));
    expect(await store.deleteConversation("c1")).toBe(true);
    expect(await store.deleteConversation("c1")).toBe(false);
    expect(await store.getMessage("m1")).toBeNull();
    expect(await store.getTurnTraceByMessageId("m1")).toBeNull();
    expect(await store.getMessage("m2")).not.toBeNull();
  });
});

describe("messages", () => {
  beforeEach(async () => {
    await store.storeConversation(conversation("c1"));
    await store.storeConversation(conversation("c2"));
  });

  it("keeps receipt order for equal timestamps and keeps the place of an upsert", async () => {
    await store.storeMessages([
      message("z-call", "c1", 100),
      message("a-result", "c1", 100),
      message("early", "c1", 50),
    ]);
    await store.storeMessage(message("m-late", "c1", 100));
    await store.storeMessage(message("z-call", "c1", 100, { originalContent: "edited" }));
    const page = await store.getMessagesByConversationId("c1");
    expect(page.items.map((m) => m.id)).toEqual(["early", "z-call", "a-result", "m-late"]);
    expect(page.items[1]!.originalContent).toBe("edited");
    const first = await store.getMessagesByConversationId("c1", { limit: 2 });
    const rest = await store.getMessagesByConversationId("c1", { cursor: first.nextCursor });
    expect([...first.items, ...rest.items].map((m) => m.id)).toEqual(page.items.map((m) => m.id));
  });

  it("returns the flip of the newest non-flagged messages", async () => {
    await store.storeMessages(
      Array.from({ length: 10 }, (_, i) => message(`m${i}`, "c1", 1_000 + i)),
    );
    await store.flagMessage("m8");
    const context = await store.getImmediateContext("c1", 3);
    expect(context.map((m) => m.id)).toEqual(["m6", "m7", "m9"]);
    expect(await store.getImmediateContext("c1", 0)).toEqual([]);
    expect(await store.getImmediateContext("none", 5)).toEqual([]);
    const unflagged = await store.flagMessage("m8", false);
    expect(unflagged.isFlagged).toBe(false);
    await expect(store.flagMessage("nope")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("round-trips every field, embeddings exactly, and moves lastActivityAt forward only", async () => {
    const full = message("m1", "c1", 9_000, {
      role: "assistant",
      enhancedMessage: "e",
      explicitContext: "x",
      episodeId: "ep",
      isContinuation: true,
      invokedFlows: ["f"],
      invokedTools: ["t"],
      reasoningSteps: ["r"],
      entities: [{ name: "n", attributes: ["a"] }],
      intent: "i",
      sentiment: "s",
      sentimentScore: -0.123456789012345,
      toolCalls: [{ toolCallId: "tc", toolName: "tool", arguments: { $q: 1 }, result: [1, "x"] }],
      metadata: { "a.b": { $c: null }, big: 2 ** 70 + 2 ** 20, tiny: 5e-324 },
      embedding: [0.1, -1 / 3, 1.7976931348623157e308, 5e-324, 2 ** -1074, 1e-300],
    });
    const [stored] = await store.storeMessages([full]);
    const read = await store.getMessage("m1");
    expect(read).toEqual(stored);
    expect(read!.embedding).toEqual(full.embedding);
    await store.storeMessage(message("m0", "c1", 1_000));
    expect((await store.getConversation("c1"))!.lastActivityAt).toBe(9_000);
  });

  it("rejects a batch with a missing conversation or a moved message, storing nothing", async () => {
    const missing = store.storeMessages([message("ok", "c1", 1), message("bad", "nope", 2)]);
    await expect(missing).rejects.toBeInstanceOf(IntegrityError);
    expect(await store.getMessage("ok")).toBeNull();
    await store.storeMessage(message("m1", "c1", 1));
    const moved = store.storeMessages([message("new", "c2", 1), message("m1", "c2", 1)]);
    await expect(moved).rejects.toBeInstanceOf(IntegrityError);
    expect(await store.getMessage("new")).toBeNull();
    expect((await store.getMessage("m1"))!.conversationId).toBe("c1");
    expect((await store.getConversation("c2"))!.lastActivityAt).toBe(1000);
  });

  it("applies the same rules to a single message (its own function, ms_write_message)", async () => {
    const missing = await store.storeMessage(message("lost", "nope", 1)).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(IntegrityError);
    expect((missing as Error).message).toContain('conversation "nope" of message "lost"');
    await store.storeMessage(message("m1", "c1", 5000));
    await store.storeMessage(message("m2", "c1", 5000));
    const moved = await store.storeMessage(message("m1", "c2", 9000)).catch((e: unknown) => e);
    expect(moved).toBeInstanceOf(IntegrityError);
    expect((moved as Error).message).toContain('belongs to conversation "c1"');
    expect((await store.getConversation("c2"))!.lastActivityAt).toBe(1000);
    // An upsert keeps its place and activity only moves forward.
    await store.storeMessage(message("m1", "c1", 5000, { originalContent: "edited" }));
    await store.storeMessage(message("old", "c1", 2000));
    const items = (await store.getMessagesByConversationId("c1")).items;
    expect(items.map((m) => [m.id, m.originalContent])).toEqual([
      ["old", "content of old"],
      ["m1", "edited"],
      ["m2", "content of m2"],
    ]);
    expect((await store.getConversation("c1"))!.lastActivityAt).toBe(5000);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.storeMessage(message(`p${i}`, "c2", 7))),
    );
    expect((await store.getMessagesByConversationId("c2")).items).toHaveLength(20);
  });

  it("serialises parallel writers into one conversation without losing or reordering", async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.storeMessages([message(`p${i}-a`, "c1", 7), message(`p${i}-b`, "c1", 7)]),
      ),
    );
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store.storeMessages([message("p0-a", "c1", 7, { originalContent: `v${i}` })]),
      ),
    );
    const ids = (await store.getMessagesByConversationId("c1")).items.map((m) => m.id);
    expect(ids).toHaveLength(40);
    for (let i = 0; i < 20; i++)
      expect(ids.indexOf(`p${i}-a`)).toBeLessThan(ids.indexOf(`p${i}-b`));
  });

  it("survives concurrent batches that touch the same conversations in opposite orders", async () => {
    await store.storeMessages([message("x", "c1", 1), message("y", "c2", 1)]);
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        store.storeMessages(
          i % 2
            ? [message("x", "c1", 2 + i), message("y", "c2", 2 + i)]
            : [message("y", "c2", 2 + i), message("x", "c1", 2 + i)],
        ),
      ),
    );
    expect((await store.getMessagesByConversationId("c1")).items).toHaveLength(1);
  });
});

describe("lifecycle", () => {
  it("is opened by the core factory and rejects calls after close", async () => {
    // Importing the package registered "postgres"; a second name shows open() gets the config.
    registerStorage({
      name: "postgres-under-test",
      open: ({ storage: _, ...config }) => PostgresMessageStore.open(config as PostgresStoreConfig),
    });
    const config = { storage: "postgres-under-test", dsn: db.url(), pool_max: 3 };
    const opened = await MessageStore.initialize(config as never);
    expect(opened).toBeInstanceOf(MessageStore);
    expect((opened as PostgresMessageStore).driver).toBeInstanceOf(PostgresDriver);
    const registered = await MessageStore.initialize({ storage: "postgres", dsn: db.url() });
    expect((registered as PostgresMessageStore).driver).toBeInstanceOf(PostgresDriver);
    await registered.close();
    await opened.storeConversation(conversation("factory"));
    await opened.close();
    await opened.close();
    await expect(opened.getConversation("factory")).rejects.toBeInstanceOf(StoreClosedError);
    expect(await store.getConversation("factory")).not.toBeNull();
  });

  it("turns a server that goes away mid-life into ConnectionError", async () => {
    const doomed = await openStore(db.url());
    await doomed.storeConversation(conversation("x"));
    await withClient(db.url(), (c) =>
      c.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'message-store' AND pid <> pg_backend_pid() AND datname = current_database()",
      ),
    );
    // The terminated idle connection is discarded; the next call reconnects or reports cleanly.
    const outcome = await doomed.getConversation("x").catch((e: unknown) => e);
    if (outcome instanceof Error) expect(outcome).toBeInstanceOf(ConnectionError);
    else expect(outcome).not.toBeNull();
    expect(await doomed.getConversation("x")).not.toBeNull();
    await doomed.close();
  });
});
