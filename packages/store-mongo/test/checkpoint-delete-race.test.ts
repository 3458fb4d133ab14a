import type { CheckpointInput, MessageStoreApi } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { openFixture } from "./helpers.js";

/**
 * A checkpoint put racing its conversation's delete, on both deployments. Without transactions the
 * put can land after the delete; what it wrote must never be read under a conversation it was not
 * written for: the next owner of the thread id (another user here, reading unscoped as a saver
 * without a user does, and through their own view) sees only their own checkpoints and values.
 */

const bytes = (text: string) => new TextEncoder().encode(text);

/** A checkpoint whose channel `a` is at version "1"; with the value when `value` is given. */
function checkpoint(thread: string, id: string, value?: string): CheckpointInput {
  return {
    conversationId: thread,
    id,
    checkpoint: { type: "json", data: bytes(`{"id":"${id}"}`) },
    channelVersions: { a: "1" },
    values:
      value === undefined
        ? []
        : [{ channel: "a", version: "1", value: { type: "json", data: bytes(value) } }],
  };
}

const texts = (c: Awaited<ReturnType<MessageStoreApi["getCheckpoint"]>>) =>
  c && {
    id: c.id,
    values: c.values.map((v) => new TextDecoder().decode(v.value.data)),
    writes: c.writes.length,
  };

// The replica set's rounds are slower (each write a transaction): fewer of them.
describe.each([
  { name: "standalone (no transactions)", standalone: true, rounds: 100 },
  { name: "replica set (transactions)", standalone: false, rounds: 30 },
])("a checkpoint put racing deleteConversation: $name", ({ standalone, rounds }) => {
  it(`${rounds} rounds: nothing of the first owner is read by the thread id's next owner, and no document of theirs stays`, {
    timeout: 300_000,
  }, async () => {
    const f = await openFixture({ standalone });
    const { store } = f;
    const leaks: string[] = [];
    let raced = 0;
    for (let i = 0; i < rounds; i++) {
      const id = `race-${i}`;
      await store.putCheckpoint(checkpoint(id, "a-0", "alice-0"), { userId: "alice" });
      const [, deleted] = await Promise.all([
        Promise.all([
          store.putCheckpoint(checkpoint(id, "a-1", "alice-1"), { userId: "alice" }),
          store.putCheckpointWrites(
            {
              conversationId: id,
              checkpointId: "a-1",
              taskId: "t",
              writes: [{ channel: "a", idx: 0, value: { type: "json", data: bytes("w") } }],
            },
            { userId: "alice" },
          ),
        ]).catch((error: Error) => error),
        store.deleteConversation(id),
      ]);
      expect(deleted).toBe(true);
      // A put that ran wholly after the delete created the thread anew: alice's, legitimately.
      if ((await store.getConversation(id)) !== null) await store.deleteConversation(id);
      else raced++;
      await store.storeConversation({ id, userId: "bob" });
      const unscoped = await store.getCheckpoint(id);
      const listed = await store.listCheckpoints({ conversationId: id });
      const bobs = await store.forUser("bob").getCheckpoint(id);
      if (unscoped || listed.items.length > 0 || bobs) {
        leaks.push(
          `${id}: ${JSON.stringify({ unscoped: texts(unscoped), listed: listed.items.length })}`,
        );
      }
      // Bob's own checkpoint names channel a at version "1" without a value: alice's value for
      // that version is not his.
      await store.putCheckpoint(checkpoint(id, "b-1"), { userId: "bob" });
      const own = texts(await store.getCheckpoint(id));
      if (JSON.stringify(own) !== JSON.stringify({ id: "b-1", values: [], writes: 0 })) {
        leaks.push(`${id}: bob's checkpoint reads ${JSON.stringify(own)}`);
      }
      const listedNow = (await store.listCheckpoints({ conversationId: id })).items.map(
        (c) => c.id,
      );
      if (JSON.stringify(listedNow) !== '["b-1"]') leaks.push(`${id}: lists ${listedNow}`);
    }
    expect(leaks).toEqual([]);
    // The race is real: most rounds' deletes ran while alice's put was between its steps.
    expect(raced).toBeGreaterThan(0);
    const left = await Promise.all(
      ["checkpoints", "checkpoint_values", "checkpoint_writes"].map((c) =>
        f.db.collection(c).countDocuments({ userId: "alice" }),
      ),
    );
    expect(left, "alice's checkpoint documents left behind").toEqual([0, 0, 0]);
  });
});
