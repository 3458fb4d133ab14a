import type { MessageStoreApi } from "@message-store/core";
import { expect, it, type TestContext } from "vitest";
import { requireCapabilities } from "../capabilities.js";
import { pollWhile, readers } from "../cases/concurrent-readers.js";
import { checkpoint, listed, OWNER, shape, value } from "../checkpoint-fixtures.js";
import { allMessages, dumpStore, withoutConversations } from "../dump.js";
import { expectRejection } from "../expect-error.js";
import { conversation } from "../fixtures.js";
import type { Harness } from "../harness.js";

/** Thread `id` of `userId`: two checkpoints (a value, a pending write), one mirrored message. */
async function thread(store: MessageStoreApi, id: string, userId: string): Promise<void> {
  const owner = { userId };
  await store.putCheckpoint(
    checkpoint(id, "c1", {
      channelVersions: { a: "1" },
      values: [{ channel: "a", version: "1", value: value(`${id}-a1`) }],
    }),
    { ...owner, messages: [{ id: `${id}-m1`, role: "user", content: "hi" }] },
  );
  await store.putCheckpoint(
    checkpoint(id, "c2", { parentId: "c1", channelVersions: { a: "1" } }),
    owner,
  );
  await store.putCheckpointWrites(
    {
      conversationId: id,
      checkpointId: "c2",
      taskId: "task",
      writes: [{ channel: "a", idx: 0, value: value("w") }],
    },
    owner,
  );
}

/** Everything of thread `id` reads as gone: no checkpoint, not listed. */
async function expectNoCheckpoints(store: MessageStoreApi, id: string): Promise<void> {
  expect(await store.getCheckpoint(id)).toBeNull();
  expect(await store.getCheckpoint(id, { id: "c1" })).toBeNull();
  expect(await listed(store, { conversationId: id })).toEqual([]);
}

/**
 * Recreates thread `id` with one checkpoint naming version 1 of `a`: a value or a write left
 * behind by a delete would show in it.
 */
async function expectNothingLeftBehind(store: MessageStoreApi, id: string): Promise<void> {
  await store.putCheckpoint(checkpoint(id, "c2", { channelVersions: { a: "1" } }), OWNER);
  expect(shape(await store.getCheckpoint(id))).toMatchObject({ id: "c2", values: [], writes: [] });
  expect(await listed(store, { conversationId: id })).toEqual([[id, "", "c2"]]);
}

/** Atomicity, deletion, soft delete, erasure and scope of checkpoints. */
export function checkpointLifecycleCases(h: Harness, need: (ctx: TestContext) => void): void {
  it("a refused put stores nothing: not the checkpoint or its values, nor (with atomicTraceBatches) the conversation or its messages", async (ctx) => {
    need(ctx);
    const badTrace = {
      id: "cp-a-tr",
      messageId: "cp-a-missing",
      conversationId: "cp-a",
      agentId: "x",
      timestamp: 1,
      totalTokens: 1,
      totalLatencyMs: 1,
    };
    const put = checkpoint("cp-a", "c1", {
      channelVersions: { a: "1" },
      values: [{ channel: "a", version: "1", value: value("v") }],
    });
    const options = {
      ...OWNER,
      messages: [{ id: "cp-a-m1", role: "user" as const, content: "hi" }],
      traces: [badTrace],
    };
    // Without atomicTraceBatches, messages stored before the refused trace may stay (as a
    // storeSessionMessages followed by storeTurnTraces would leave them); the checkpoint never.
    const atomic = h.store.capabilities.atomicTraceBatches === true;
    await expectRejection(() => h.store.putCheckpoint(put, options), "INTEGRITY");
    if (atomic) {
      expect(await h.store.getConversation("cp-a")).toBeNull();
      expect(await h.store.getMessage("cp-a-m1")).toBeNull();
    }
    await h.store.putCheckpoint(checkpoint("cp-a", "c0"), OWNER);
    await expectRejection(() => h.store.putCheckpoint(put, options), "INTEGRITY");
    if (atomic) expect(await h.store.getMessage("cp-a-m1")).toBeNull();
    expect(await listed(h.store, { conversationId: "cp-a" })).toEqual([["cp-a", "", "c0"]]);
    await h.store.putCheckpoint(checkpoint("cp-a", "c2", { channelVersions: { a: "1" } }), OWNER);
    expect(shape(await h.store.getCheckpoint("cp-a"))!.values).toEqual([]);
  });

  it("a put or write into another owner's thread is refused (IntegrityError; NotFoundError through a view), nothing stored", async (ctx) => {
    need(ctx);
    await thread(h.store, "cp-own", "alice");
    const before = shape(await h.store.getCheckpoint("cp-own"));
    const put = () => checkpoint("cp-own", "c9");
    const writes = {
      conversationId: "cp-own",
      checkpointId: "c2",
      taskId: "evil",
      writes: [{ channel: "a", idx: 0, value: value("x") }],
    };
    await expectRejection(() => h.store.putCheckpoint(put(), { userId: "bob" }), "INTEGRITY");
    await expectRejection(
      () => h.store.putCheckpointWrites(writes, { userId: "bob" }),
      "INTEGRITY",
    );
    const bob = h.store.forUser("bob");
    await expectRejection(() => bob.putCheckpoint(put(), { userId: "bob" }), "NOT_FOUND");
    await expectRejection(() => bob.putCheckpointWrites(writes, { userId: "bob" }), "NOT_FOUND");
    expect(shape(await h.store.getCheckpoint("cp-own"))).toEqual(before);
    expect(await h.store.getConversation("cp-own")).toMatchObject({ userId: "alice" });
  });

  it("a view reads and lists only its owner's threads; another owner's thread reads as absent", async (ctx) => {
    need(ctx);
    await thread(h.store, "cp-va", "alice");
    await thread(h.store, "cp-vb", "bob");
    const alice = h.store.forUser("alice");
    expect(await alice.getCheckpoint("cp-vb")).toBeNull();
    expect(await alice.getCheckpoint("cp-va")).toEqual(await h.store.getCheckpoint("cp-va"));
    expect(await listed(alice)).toEqual([
      ["cp-va", "", "c2"],
      ["cp-va", "", "c1"],
    ]);
    expect(await listed(alice, { conversationId: "cp-vb" })).toEqual([]);
    expect(await listed(alice, { userId: "bob" })).toEqual([]);
    expect(await alice.deleteCheckpoints("cp-vb")).toBe(false);
    expect(await h.store.getCheckpoint("cp-vb")).not.toBeNull();
    await alice.putCheckpoint(checkpoint("cp-va", "c3"), { userId: "alice" });
    expect((await h.store.getCheckpoint("cp-va"))!.id).toBe("c3");
    if (h.store.capabilities.tenants) {
      await h.store.putCheckpoint(checkpoint("cp-vt", "c1"), { userId: "carol", tenantId: "t1" });
      expect(await listed(h.store.forTenant("t1"))).toEqual([["cp-vt", "", "c1"]]);
      expect(await h.store.forTenant("t2").getCheckpoint("cp-vt")).toBeNull();
    }
  });

  it("deleteConversation deletes the thread's checkpoints, values and writes with it", async (ctx) => {
    need(ctx);
    await thread(h.store, "cp-d", "u1");
    await thread(h.store, "cp-keep", "u1");
    const kept = await h.store.getCheckpoint("cp-keep");
    expect(await h.store.deleteConversation("cp-d")).toBe(true);
    await expectNoCheckpoints(h.store, "cp-d");
    expect(await h.store.getCheckpoint("cp-keep")).toEqual(kept);
    await expectNothingLeftBehind(h.store, "cp-d");
  });

  it("deleteCheckpoints deletes the thread's checkpoints and keeps its conversation and transcript", async (ctx) => {
    need(ctx);
    await thread(h.store, "cp-dc", "u1");
    const transcript = await allMessages(h.store, "cp-dc");
    expect(transcript).toHaveLength(1);
    expect(await h.store.deleteCheckpoints("cp-dc")).toBe(true);
    await expectNoCheckpoints(h.store, "cp-dc");
    expect(await allMessages(h.store, "cp-dc")).toEqual(transcript);
    expect(await h.store.deleteCheckpoints("cp-dc")).toBe(true);
    expect(await h.store.deleteCheckpoints("cp-none")).toBe(false);
    await h.store.putCheckpoint(checkpoint("cp-dc", "c2", { channelVersions: { a: "1" } }), {
      userId: "u1",
    });
    expect(shape(await h.store.getCheckpoint("cp-dc"))).toMatchObject({ values: [], writes: [] });
  });

  it("a soft-deleted conversation hides its checkpoints and refuses puts; restore brings them back; purge deletes them", async (ctx) => {
    need(ctx);
    requireCapabilities(h, ctx, "softDelete");
    await thread(h.store, "cp-sd", "u1");
    await thread(h.store, "cp-sd-other", "u1");
    const before = await h.store.getCheckpoint("cp-sd");
    expect(await h.store.softDeleteConversation("cp-sd")).toBe(true);
    await expectNoCheckpoints(h.store, "cp-sd");
    expect(await listed(h.store)).toEqual(await listed(h.store, { conversationId: "cp-sd-other" }));
    await expectRejection(
      () => h.store.putCheckpoint(checkpoint("cp-sd", "c9"), { userId: "u1" }),
      "INTEGRITY",
    );
    await expectRejection(
      () =>
        h.store.putCheckpointWrites(
          {
            conversationId: "cp-sd",
            checkpointId: "c2",
            taskId: "t",
            writes: [{ channel: "a", idx: 1, value: value("late") }],
          },
          { userId: "u1" },
        ),
      "INTEGRITY",
    );
    expect(await h.store.restoreConversation("cp-sd")).toBe(true);
    expect(await h.store.getCheckpoint("cp-sd")).toEqual(before);
    expect(await h.store.softDeleteConversation("cp-sd")).toBe(true);
    const purged = await h.store.purgeDeleted({ before: Date.now() + 60_000 });
    expect(purged.conversations).toBe(1);
    await expectNothingLeftBehind(h.store, "cp-sd");
    expect(await h.store.getCheckpoint("cp-sd-other")).not.toBeNull();
  });

  it("deleteUserData erases the user's threads with their checkpoints, and only theirs", async (ctx) => {
    need(ctx);
    await thread(h.store, "cp-e1", "erase-me");
    await thread(h.store, "cp-e2", "erase-me");
    await thread(h.store, "cp-e3", "keep-me");
    const kept = await dumpStore(h.store, { userIds: ["keep-me"] });
    const keptCheckpoints = await listed(h.store, { userId: "keep-me" });
    expect(await h.store.deleteUserData("erase-me")).toMatchObject({ conversations: 2 });
    await expectNoCheckpoints(h.store, "cp-e1");
    await expectNoCheckpoints(h.store, "cp-e2");
    expect(await listed(h.store)).toEqual(keptCheckpoints);
    expect(await dumpStore(h.store, { userIds: ["keep-me"] })).toEqual(
      withoutConversations(kept, ["cp-e1", "cp-e2"]),
    );
    await expectNothingLeftBehind(h.store, "cp-e1");
  });

  it("checkpoints, values and writes survive close and reopen (and a restart of the backend)", async (ctx) => {
    need(ctx);
    if (!h.persistent) ctx.skip(`${h.name} keeps nothing after close()`);
    await thread(h.store, "cp-p", "u1");
    await h.store.putCheckpoint(
      checkpoint("cp-p", "c3", {
        namespace: "sub",
        channelVersions: { bin: "1" },
        values: [
          {
            channel: "bin",
            version: "1",
            value: { type: "bytes", data: new Uint8Array([0, 255, 128, 10]) },
          },
        ],
      }),
      { userId: "u1" },
    );
    const before = await listed(h.store);
    const all = (await h.store.listCheckpoints()).items;
    let store = await h.reopen();
    expect((await store.listCheckpoints()).items).toEqual(all);
    store = await h.restart();
    expect((await store.listCheckpoints()).items).toEqual(all);
    expect(await listed(store)).toEqual(before);
    expect([...all.find((c) => c.namespace === "sub")!.values[0]!.value.data]).toEqual([
      0, 255, 128, 10,
    ]);
  });

  it("a checkpoint is read with all of its values or not at all while puts run", async (ctx) => {
    need(ctx);
    await h.store.storeConversation(conversation({ id: "cp-r", userId: OWNER.userId }));
    const channels = ["a", "b", "c", "d", "e", "f", "g", "h"];
    const put = async () => {
      for (let i = 1; i <= 15; i++) {
        const versions = Object.fromEntries(channels.map((c) => [c, String(i)]));
        await h.store.putCheckpoint(
          checkpoint("cp-r", `c${String(i).padStart(2, "0")}`, {
            channelVersions: versions,
            values: channels.map((c) => ({
              channel: c,
              version: String(i),
              value: value(`${c}${i}`),
            })),
          }),
          OWNER,
        );
      }
    };
    const seen = new Set<string>();
    await pollWhile(await readers(h.caseContext()), put(), async (store) => {
      const c = await store.getCheckpoint("cp-r");
      if (c === null) return;
      seen.add(c.id);
      const step = Number(c.id.slice(1));
      expect(shape(c)!.values).toEqual(
        channels.map((ch) => [ch, String(step), `json:${ch}${step}`]),
      );
    });
    expect(seen.has("c15")).toBe(true);
  });
}
