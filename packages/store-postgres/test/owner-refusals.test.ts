import { IntegrityError, NotFoundError } from "@message-store/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PostgresMessageStore } from "../src/index.js";
import { conversation, message, openStore, trace, useDatabase, withClient } from "./helpers.js";

/**
 * Which refusals the SQL reports as owner refusals (`ownerRefusal`: a view answers `NotFoundError:
 * <record> "<id>" does not exist`) and which stay plain `IntegrityError`s, in both layouts: the
 * partitioned one finds moved ids and trace refusals on paths of its own.
 *
 * Alice owns a1 and a2 (tenant t1), Bob b1 (tenant t1); Bob's message bm1 carries trace bt1.
 */

const db = useDatabase("ms_pg_owner_refusals");
const layouts = [
  ["default", "plain", undefined],
  ["partitioned", "parted", 4],
] as const;
const stores = new Map<string, PostgresMessageStore>();
/** A store or a view of it: the writes below run through both. */
type Store = ReturnType<PostgresMessageStore["forUser"]>;

beforeAll(async () => {
  for (const [name, schema, partitions] of layouts) {
    stores.set(name, await openStore(db.url(), { schema, ...(partitions ? { partitions } : {}) }));
  }
});
afterAll(async () => {
  for (const store of stores.values()) await store.close();
});

/** Every row of the schema, to show a refusal changed nothing. */
function dump(schema: string) {
  return withClient(db.url(), async (c) => {
    const rows = async (table: string) =>
      (await c.query(`SELECT * FROM ${schema}.${table} ORDER BY id`)).rows;
    return [await rows("conversations"), await rows("messages"), await rows("turn_traces")];
  });
}

describe.each(layouts)("%s layout", (name, schema) => {
  let store: PostgresMessageStore;
  beforeEach(async () => {
    store = stores.get(name)!;
    await withClient(db.url(), (c) => c.query(`TRUNCATE ${schema}.conversations CASCADE`));
    await store.storeConversation(conversation("a1", "alice", { tenantId: "t1" }));
    await store.storeConversation(conversation("a2", "alice", { tenantId: "t1" }));
    await store.storeConversation(conversation("b1", "bob", { tenantId: "t1" }));
    await store.storeMessages([message("am1", "a1", 1, { userId: "alice" })]);
    await store.storeMessages([message("am2", "a2", 1, { userId: "alice" })]);
    await store.storeMessages([message("bm1", "b1", 1, { userId: "bob" })]);
    await store.storeTurnTrace(trace("bt1", "bm1", "b1"));
  });

  /** Refused as `<record> "<id>" does not exist` through Alice's view, and changes nothing. */
  async function refusedAsMissing(
    write: (view: Store) => Promise<unknown>,
    record: string,
    id: string,
  ): Promise<void> {
    const before = await dump(schema);
    const error = await write(store.forUser("alice")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toBe(
      `[message-store] [postgres] ${record} ${JSON.stringify(id)} does not exist`,
    );
    // Unscoped, the same refusal is an IntegrityError.
    expect(await write(store).catch((e: unknown) => e)).toBeInstanceOf(IntegrityError);
    expect(await dump(schema)).toEqual(before);
  }

  /** Refused as a plain `IntegrityError`, through Alice's view too, and changes nothing. */
  async function refusedAsIntegrity(
    write: (view: Store) => Promise<unknown>,
    text: RegExp,
  ): Promise<void> {
    const before = await dump(schema);
    const error = await write(store.forUser("alice")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IntegrityError);
    expect((error as Error).message).toMatch(text);
    expect(await dump(schema)).toEqual(before);
  }

  const mine = (id: string, conversationId: string) =>
    message(id, conversationId, 9, { userId: "alice" });

  it("a message into a missing conversation or one of another owner: that conversation", async () => {
    await refusedAsMissing((v) => v.storeMessage(mine("new", "nope")), "conversation", "nope");
    await refusedAsMissing((v) => v.storeMessage(mine("new", "b1")), "conversation", "b1");
    await refusedAsMissing(
      (v) => v.storeMessages([mine("ok", "a1"), mine("new", "b1")]),
      "conversation",
      "b1",
    );
    // Another tenant: through a tenant's view, the same answer.
    const otherTenant = { ...mine("new", "a1"), tenantId: "t2" };
    const error = await store
      .forTenant("t2")
      .storeMessage(otherTenant)
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      '[message-store] [postgres] conversation "a1" does not exist',
    );
    await expect(store.storeMessage(otherTenant)).rejects.toBeInstanceOf(IntegrityError);
  });

  it("a message id stored in another owner's conversation: that message", async () => {
    await refusedAsMissing((v) => v.storeMessage(mine("bm1", "a1")), "message", "bm1");
    await refusedAsMissing(
      (v) => v.storeMessages([mine("ok", "a1"), mine("bm1", "a1")]),
      "message",
      "bm1",
    );
  });

  it("the owner rule wins over a move: Alice's id written into Bob's conversation", async () => {
    await refusedAsMissing((v) => v.storeMessage(mine("am2", "b1")), "conversation", "b1");
    await refusedAsMissing(
      (v) => v.storeMessages([mine("ok", "b1"), mine("am2", "b1")]),
      "conversation",
      "b1",
    );
  });

  it("a move between two conversations of one owner stays a plain IntegrityError", async () => {
    const moved = /message "am2" belongs to conversation "a2" and cannot move to "a1"/;
    await refusedAsIntegrity((v) => v.storeMessage(mine("am2", "a1")), moved);
    await refusedAsIntegrity((v) => v.storeMessages([mine("ok", "a1"), mine("am2", "a1")]), moved);
  });

  it("a conversation stored with another owner, also when its deletedAt differs too", async () => {
    const taken = conversation("b1", "alice", { tenantId: "t1" });
    await refusedAsMissing((v) => v.storeConversation(taken), "conversation", "b1");
    expect(await store.softDeleteConversation("b1")).toBe(true);
    await refusedAsMissing((v) => v.storeConversation(taken), "conversation", "b1");
    await refusedAsIntegrity(
      (v) =>
        v.storeConversation({ ...conversation("a1", "alice", { tenantId: "t1" }), deletedAt: 5 }),
      /deletedAt changes only through softDeleteConversation/,
    );
  });

  it("a session into another owner's conversation", async () => {
    const turns = [{ role: "user" as const, content: "x" }];
    await refusedAsMissing(
      (v) => v.storeSessionMessages("b1", turns, { userId: "alice", tenantId: "t1" }),
      "conversation",
      "b1",
    );
  });

  it("a trace in another owner's or a missing conversation, on another owner's or a missing message", async () => {
    const t = (id: string, messageId: string, conversationId: string) =>
      trace(id, messageId, conversationId, { userId: "alice" });
    for (const write of ["storeTurnTrace", "storeTurnTraces"] as const) {
      // Alone, or after a trace that is fine (the batch then stores nothing).
      const put = (v: Store, x: ReturnType<typeof t>) =>
        write === "storeTurnTrace"
          ? v.storeTurnTrace(x)
          : v.storeTurnTraces([t("ok", "am2", "a2"), x]);
      await refusedAsMissing((v) => put(v, t("new", "bm1", "b1")), "conversation", "b1");
      await refusedAsMissing((v) => put(v, t("new", "am1", "nope")), "conversation", "nope");
      await refusedAsMissing((v) => put(v, t("new", "bm1", "a1")), "message", "bm1");
      await refusedAsMissing((v) => put(v, t("bt1", "am1", "a1")), "turn trace", "bt1");
      await refusedAsIntegrity(
        (v) => put(v, t("new", "am2", "a1")),
        /message "am2" belongs to another conversation than "a1"/,
      );
      await refusedAsMissing((v) => put(v, t("new", "missing", "a1")), "message", "missing");
    }
  });
});
