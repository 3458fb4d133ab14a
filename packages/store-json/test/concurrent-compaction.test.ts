import { appendFileSync, copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isMessageStoreError, MessageSchema } from "@message-store/core";
import { applyOperation, type Operation } from "@message-store/core/memory";
import { describe, expect, it } from "vitest";
import { FilePersistence } from "../src/file-persistence.js";
import { JsonMessageStore } from "../src/index.js";
import { crashCopy, message, tempDir } from "./helpers.js";

/** Resolves true when `promise` has settled (checked after a turn of the event loop). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

async function storeWithMessages(path: string, count: number): Promise<JsonMessageStore> {
  const store = await JsonMessageStore.open({ path });
  await store.storeConversation({ id: "c1", userId: "u1", createdAt: 1 });
  for (let start = 0; start < count; start += 1_000) {
    await store.storeMessages(
      Array.from({ length: 1_000 }, (_, i) =>
        message(`m${start + i}`, "c1", start + i, { originalContent: "y".repeat(300) }),
      ),
    );
  }
  return store;
}

async function countMessages(path: string): Promise<number> {
  const store = await JsonMessageStore.open({ path });
  try {
    let count = 0;
    let cursor: string | undefined;
    do {
      const page = await store.getMessagesByConversationId("c1", { limit: 1_000, cursor });
      count += page.items.length;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return count;
  } finally {
    await store.close();
  }
}

describe("compaction while writes go on", () => {
  it("acknowledges writes before the compaction ends, and keeps every one", async () => {
    const path = join(tempDir(), "db.json");
    const store = await storeWithMessages(path, 20_000);
    const compaction = store.driver.compact();
    let during = 0;
    let written = 0;
    while (!(await settled(compaction))) {
      await store.storeMessage(message(`w${written}`, "c1", 50_000 + written));
      written++;
      if (!(await settled(compaction))) during++;
    }
    await compaction;
    // A compaction that held the mutex throughout would let no write through before its end.
    expect(during).toBeGreaterThan(0);
    const copy = crashCopy(path);
    await store.close();
    expect(await countMessages(path)).toBe(20_000 + written);
    expect(await countMessages(copy)).toBe(20_000 + written);
  });

  it("a crash at any point of it loses no acknowledged write and applies none twice", async () => {
    const path = join(tempDir(), "db.json");
    await (await storeWithMessages(path, 5_000)).close();
    const persistence = await FilePersistence.open(path, {
      bytes: 1 << 30,
      growWithMainFile: false,
    });
    const state = persistence.memoryState;
    let next = 0;
    const write = () =>
      persistence.mutex.run(async () => {
        const op: Operation = {
          op: "putMessages",
          messages: [MessageSchema.parse(message(`n${next}`, "c1", 10_000 + next))],
        };
        await persistence.commit([op]);
        applyOperation(state, op);
        next++;
      });
    // A crash copy taken holding the mutex is a state a crash can leave: no step of a
    // compaction that touches the main file or the journal runs meanwhile.
    const copies: { copy: string; messages: number }[] = [];
    const snap = () =>
      persistence.mutex.run(() => {
        copies.push({ copy: crashCopy(path), messages: 5_000 + next });
      });
    for (let i = 0; i < 5; i++) await write();
    const compaction = persistence.compact();
    while (!(await settled(compaction))) {
      await write();
      await snap();
    }
    await compaction;
    // After the rename, before the journal's folded lines were dropped: the new main file
    // with a journal as it was while the snapshot was being written.
    const duringCopy = copies[0]?.copy;
    expect(duringCopy).toBeDefined();
    const journal = readFileSync(`${duringCopy}.journal`, "utf8");
    expect(journal).toContain('"op":"generation"');
    const renamed = join(tempDir(), "db.json");
    copyFileSync(path, renamed);
    copyFileSync(`${duringCopy}.journal`, `${renamed}.journal`);
    copies.push({ copy: renamed, messages: copies[0]!.messages });
    for (let i = 0; i < 3; i++) await write();
    await snap();
    await persistence.close();
    expect(existsSync(`${path}.compacting.tmp`)).toBe(false);
    for (const { copy, messages } of copies) {
      expect(await countMessages(copy), copy).toBe(messages);
    }
  });

  it("a journal that jumps a generation without a mark is refused (an older main file)", async () => {
    const path = join(tempDir(), "db.json");
    const store = await storeWithMessages(path, 1_000);
    await store.driver.compact();
    const copy = crashCopy(path);
    await store.close();
    const main = JSON.parse(readFileSync(copy, "utf8")) as { generation: number };
    appendFileSync(`${copy}.journal`, `{"gen":${main.generation + 1},"op":"generation"}\n`);
    expect(await countMessages(copy)).toBe(1_000);
    const line = `{"gen":${main.generation + 3},"op":"deleteConversation","id":"c1"}\n`;
    appendFileSync(`${copy}.journal`, line);
    const error = await JsonMessageStore.open({ path: copy }).catch((e: unknown) => e);
    expect(isMessageStoreError(error) && error.code).toBe("CORRUPT_DATA");
  });
});
