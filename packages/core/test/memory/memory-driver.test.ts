import { describe, expect, it } from "vitest";
import {
  ConfigurationError,
  IntegrityError,
  MessageStore,
  type TurnTraceInput,
} from "../../src/index.js";
import {
  applyOperation,
  applyResolved,
  checkOperation,
  MemoryDriver,
  MemoryState,
  type Operation,
  resolveWrite,
  type Write,
  type WriteCommit,
  type WriteResult,
} from "../../src/memory.js";
import { assertFreshBuild, DIST_ENTRY, runNode } from "../support/run-node.js";
import { msg } from "../support/store-fixtures.js";

const trace = (id: string, messageId: string, fields: Partial<TurnTraceInput> = {}) => ({
  id,
  messageId,
  conversationId: "c1",
  agentId: "a",
  timestamp: 1,
  totalTokens: 0,
  totalLatencyMs: 0,
  ...fields,
});

/** A memory store whose commits also record the operations they applied (what a journal holds). */
function journaled() {
  const state = new MemoryState();
  const journal: Operation[] = [];
  const commit: WriteCommit = async <W extends Write>(write: W): Promise<WriteResult<W>> => {
    const resolved = resolveWrite(state, write);
    journal.push(...structuredClone(resolved.ops));
    return applyResolved(state, resolved);
  };
  return { store: new MessageStore(new MemoryDriver({ state, commit })), journal };
}

describe('storage "memory"', () => {
  it("opens a new, empty store on every initialize; a key besides storage is refused", async () => {
    await import("../../src/memory.js");
    const a = await MessageStore.initialize({ storage: "memory" });
    const b = await MessageStore.initialize({ storage: "memory" });
    await a.storeConversation({ id: "c", userId: "u" });
    expect(await b.getConversation("c")).toBeNull();
    expect(a.driver).toBeInstanceOf(MemoryDriver);
    expect(a.capabilities).toMatchObject({ softDelete: true, atomicTraceBatches: true });
    await expect(
      MessageStore.initialize({ storage: "memory", path: "x" } as never),
    ).rejects.toBeInstanceOf(ConfigurationError);
  });

  it("is found by initialize without an import: the factory imports @message-store/core/memory", () => {
    assertFreshBuild();
    const run = runNode(
      `const { MessageStore } = await import(${JSON.stringify(DIST_ENTRY)});
       const store = await MessageStore.initialize({ storage: "memory" });
       await store.storeConversation({ id: "c", userId: "u" });
       console.log(JSON.stringify({ name: store.adapterName, c: (await store.getConversation("c")).id }));`,
    );
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ name: "memory", c: "c" });
  });
});

describe("MemoryDriver: storeSessionMessages chooses timestamps inside the write", () => {
  const turns = (...contents: string[]) =>
    contents.map((content) => ({ role: "user" as const, content }));

  it("two concurrent calls on one session never interleave", async () => {
    const store = new MessageStore(new MemoryDriver());
    const [a, b] = await Promise.all([
      store.storeSessionMessages("s", turns("a1", "a2", "a3"), { userId: "u" }),
      store.storeSessionMessages("s", turns("b1", "b2", "b3"), { userId: "u" }),
    ]);
    const transcript = (await store.loadSessionMessages("s")).map((m) => m.originalContent);
    expect(transcript).toEqual(["a1", "a2", "a3", "b1", "b2", "b3"]);
    expect(b[0]!.timestamp).toBeGreaterThan(a[2]!.timestamp);
  });

  it("a conversation whose activity is at the end of time refuses new turns with IntegrityError, nothing stored", async () => {
    const store = new MessageStore(new MemoryDriver());
    await store.storeSessionMessages("s", [{ id: "t1", role: "user", content: "hi" }], {
      userId: "u",
    });
    await store.storeMessage(
      msg("last", Number.MAX_SAFE_INTEGER - 1, { conversationId: "s", userId: "u" }),
    );
    // One turn still fits at MAX_SAFE_INTEGER; two do not, and neither is stored.
    const refused = store.storeSessionMessages("s", turns("a", "b"), { userId: "u" });
    await expect(refused).rejects.toThrow(IntegrityError);
    await expect(refused).rejects.toThrow(/activity is at the end of time.*nothing was stored/);
    const [fits] = await store.storeSessionMessages("s", turns("c"), { userId: "u" });
    expect(fits!.timestamp).toBe(Number.MAX_SAFE_INTEGER);
    await expect(store.storeSessionMessages("s", turns("d"), { userId: "u" })).rejects.toThrow(
      /end of time/,
    );
    // A retry of stored turns needs no new timestamp: still an idempotent upsert.
    await store.storeSessionMessages("s", [{ id: "t1", role: "user", content: "hi" }], {
      userId: "u",
    });
    const transcript = (await store.loadSessionMessages("s")).map((m) => m.originalContent);
    expect(transcript).toEqual(["hi", "last", "c"]);
  });

  it("a retry of the same turn ids keeps their stored timestamps and the transcript's order", async () => {
    const store = new MessageStore(new MemoryDriver());
    const first = [{ id: "t1", role: "user" as const, content: "hello" }];
    const [stored] = await store.storeSessionMessages("s", first, { userId: "u" });
    await store.storeSessionMessages("s", turns("later"), { userId: "u" });
    const [retried] = await store.storeSessionMessages("s", first, { userId: "u" });
    expect(retried!.timestamp).toBe(stored!.timestamp);
    const transcript = (await store.loadSessionMessages("s")).map((m) => m.originalContent);
    expect(transcript).toEqual(["hello", "later"]);
  });

  it("journals the chosen timestamps, so a replay of the operations gives the same state", async () => {
    const { store, journal } = journaled();
    const future = Date.now() + 60_000;
    await store.storeSessionMessages("s", turns("x"), { userId: "u" });
    await store.storeMessage(msg("late", future, { conversationId: "s", userId: "u" }));
    const [m] = await store.storeSessionMessages("s", turns("y"), { userId: "u" });
    expect(m!.timestamp).toBe(future + 1);
    const replayed = new MemoryState();
    for (const op of journal) {
      checkOperation(replayed, op);
      applyOperation(replayed, op);
    }
    const again = new MessageStore(new MemoryDriver({ state: replayed }));
    expect(await again.loadSessionMessages("s")).toEqual(await store.loadSessionMessages("s"));
    expect(journal.map((op) => op.op)).toEqual(["putMessages", "putMessages", "putMessages"]);
  });

  it("refuses a soft-deleted conversation (IntegrityError) and another owner's (NotFound through a view)", async () => {
    const store = new MessageStore(new MemoryDriver());
    await store.storeSessionMessages("s", turns("x"), { userId: "u" });
    await expect(
      store.forUser("v").storeSessionMessages("s", turns("y"), { userId: "v" }),
    ).rejects.toThrow('conversation "s" does not exist');
    await store.softDeleteConversation("s");
    await expect(
      store.storeSessionMessages("s", turns("y"), { userId: "u" }),
    ).rejects.toBeInstanceOf(IntegrityError);
  });
});

describe("MemoryDriver: the rules of the driver contract", () => {
  async function withMessages() {
    const store = new MessageStore(new MemoryDriver());
    await store.storeConversation({ id: "c1", userId: "u1", tenantId: "t1", createdAt: 1 });
    await store.storeMessages([msg("m1", 10), msg("m2", 20), msg("m3", 30)]);
    return store;
  }

  it("a trace batch is all or nothing, refused with the first failing trace's error", async () => {
    const store = await withMessages();
    const error = await store
      .storeTurnTraces([trace("t1", "m1"), trace("t2", "missing"), trace("t3", "m1")])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IntegrityError);
    expect((error as Error).message).toContain('message "missing"');
    expect(await store.getTurnTraceByMessageId("m1")).toBeNull();
    const inBatch = await store
      .storeTurnTraces([trace("t1", "m1"), trace("t3", "m1")])
      .catch((e: unknown) => e);
    expect((inBatch as Error).message).toContain('message "m1" already has turn trace "t1"');
    expect(await store.getTurnTraceByMessageId("m1")).toBeNull();
  });

  it("an upsert moving a message forward raises lastActivityAt", async () => {
    const store = await withMessages();
    await store.storeMessage(msg("m1", 500));
    expect((await store.getConversation("c1"))!.lastActivityAt).toBe(500);
    await store.storeMessage(msg("m1", 5));
    expect((await store.getConversation("c1"))!.lastActivityAt).toBe(500);
  });

  it("purgeDeleted removes what was deleted strictly before `before`", async () => {
    const store = await withMessages();
    await store.softDeleteMessage("m1");
    const { deletedAt } = (await store.getMessage("m1", { includeDeleted: true }))!;
    const nothing = await store.purgeDeleted({ before: deletedAt! });
    expect(nothing).toEqual({ conversations: 0, messages: 0, turnTraces: 0 });
    const one = await store.purgeDeleted({ before: deletedAt! + 1 });
    expect(one).toEqual({ conversations: 0, messages: 1, turnTraces: 0 });
  });

  it("the pending list applies the scope's tenant", async () => {
    const store = await withMessages();
    await store.storeConversation({ id: "c2", userId: "u1", tenantId: "t2", createdAt: 1 });
    await store.storeMessage(msg("other", 1, { conversationId: "c2" }));
    const ids = async (view: MessageStore) =>
      (await view.listPendingEmbeddings()).items.map((m) => m.id);
    expect(await ids(store.forTenant("t2"))).toEqual(["other"]);
    expect(await ids(store.forUser("u1").forTenant("t1"))).toEqual(["m1", "m2", "m3"]);
    expect(await ids(store.forTenant("t3"))).toEqual([]);
  });

  it("a conversation's soft-delete stamp goes after every stamp among its records", async () => {
    const store = await withMessages();
    const later = Date.now() + 60_000;
    await store.storeMessage(msg("gone", 40, { deletedAt: later }));
    await store.softDeleteConversation("c1");
    const c = await store.getConversation("c1", { includeDeleted: true });
    expect(c!.deletedAt).toBe(later + 1);
    await store.restoreConversation("c1");
    expect((await store.getMessage("gone", { includeDeleted: true }))!.deletedAt).toBe(later);
    expect((await store.getMessage("m1"))!.deletedAt).toBeNull();
  });
});
