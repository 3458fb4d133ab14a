import { createHash } from "node:crypto";
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { isMessageStoreError, MessageStore } from "@message-store/core";
import { JsonMessageStore } from "@message-store/json";
import { describe, expect, it } from "vitest";
import { holdOpen } from "./support/json-holder.js";
import { conversation, message, versionOf } from "./support/messages.js";
import { createRng, runSeed } from "./support/prng.js";
import { tempDir } from "./support/temp-dir.js";

/** What the store must hold after a given number of complete journal lines. */
interface Expected {
  conversations: string[];
  messages: Map<string, { version: number; flagged: boolean; conversationId: string }>;
}

function cloneExpected(e: Expected): Expected {
  return {
    conversations: [...e.conversations],
    messages: new Map([...e.messages].map(([id, m]) => [id, { ...m }])),
  };
}

/**
 * Writes a mix of operations (each adds exactly one journal line) and records the expected state
 * after each. Returns the crash image (main file + journal copied while the store was open).
 */
async function buildJournal(seed: number): Promise<{ dir: string; states: Expected[] }> {
  const rng = createRng(seed);
  const dir = tempDir("json-journal");
  const path = join(dir, "db.json");
  const store = await JsonMessageStore.open({ path, compact_threshold_bytes: 64 * 1024 * 1024 });
  const current: Expected = { conversations: [], messages: new Map() };
  const states: Expected[] = [cloneExpected(current)];
  let n = 0;
  for (let op = 0; op < 120; op++) {
    const r = rng.next();
    const ids = [...current.messages.keys()];
    if (current.conversations.length === 0 || r < 0.1) {
      const id = `c${n++}`;
      await store.storeConversation(conversation(id));
      current.conversations.push(id);
    } else if (r < 0.45) {
      const c = current.conversations[rng.int(0, current.conversations.length - 1)]!;
      const id = `m${n++}`;
      await store.storeMessage(message(id, c, 1000 + n));
      current.messages.set(id, { version: 0, flagged: false, conversationId: c });
    } else if (r < 0.7) {
      const c = current.conversations[rng.int(0, current.conversations.length - 1)]!;
      const batch = Array.from({ length: rng.int(2, 6) }, () => message(`m${n++}`, c, 1000 + n));
      await store.storeMessages(batch);
      for (const m of batch)
        current.messages.set(m.id, { version: 0, flagged: false, conversationId: c });
    } else if (r < 0.85 && ids.length > 0) {
      const id = ids[rng.int(0, ids.length - 1)]!;
      const m = current.messages.get(id)!;
      m.version++;
      m.flagged = false; // an upsert replaces the whole record, flag included
      await store.storeMessage(message(id, m.conversationId, 1000 + n++, m.version));
    } else if (ids.length > 0) {
      const id = ids[rng.int(0, ids.length - 1)]!;
      const m = current.messages.get(id)!;
      m.flagged = !m.flagged;
      await store.flagMessage(id, m.flagged);
    } else {
      continue;
    }
    states.push(cloneExpected(current));
  }
  const image = tempDir("json-journal-image");
  copyFileSync(path, join(image, "db.json"));
  copyFileSync(`${path}.journal`, join(image, "db.json.journal"));
  await store.close();
  return { dir: image, states };
}

async function expectState(store: JsonMessageStore, expected: Expected, where: string) {
  const all = await store.listConversations();
  expect(all.items.map((c) => c.id).sort(), `${where}: conversations`).toEqual(
    [...expected.conversations].sort(),
  );
  const seen = new Set<string>();
  for (const c of expected.conversations) {
    for (const m of (await store.getMessagesByConversationId(c)).items) {
      const want = expected.messages.get(m.id);
      expect(want, `${where}: message ${m.id} was never completely written`).toBeDefined();
      expect({ c: m.conversationId, v: versionOf(m), f: m.isFlagged }, `${where}: ${m.id}`).toEqual(
        {
          c: want!.conversationId,
          v: want!.version,
          f: want!.flagged,
        },
      );
      seen.add(m.id);
    }
  }
  expect(seen.size, `${where}: messages`).toBe(expected.messages.size);
}

describe("json damaged files", () => {
  it("a journal truncated at random byte offsets opens with every complete record kept", async () => {
    const seed = runSeed();
    const { dir, states } = await buildJournal(seed);
    const journal = readFileSync(join(dir, "db.json.journal"));
    const ends: number[] = []; // byte offset just after each line's newline
    for (let i = journal.indexOf(0x0a); i !== -1; i = journal.indexOf(0x0a, i + 1))
      ends.push(i + 1);
    expect(ends.length, "one journal line per write").toBe(states.length - 1);

    const rng = createRng(seed ^ 0x5eed);
    const offsets = new Set<number>([0, journal.length]);
    for (const end of ends)
      for (const d of [-2, -1, 0, 1]) offsets.add(Math.min(journal.length, Math.max(0, end + d)));
    while (offsets.size < ends.length * 4 + 150) offsets.add(rng.int(0, journal.length));

    for (const offset of [...offsets].sort((a, b) => a - b)) {
      const where = `seed ${seed}, journal cut at byte ${offset} of ${journal.length}`;
      const copy = tempDir("json-truncated");
      const path = join(copy, "db.json");
      copyFileSync(join(dir, "db.json"), path);
      writeFileSync(`${path}.journal`, journal.subarray(0, offset));
      const complete = ends.filter((end) => end <= offset).length;
      const store = await JsonMessageStore.open({ path }).catch((e: unknown) => {
        throw new Error(`${where}: open failed: ${e}`);
      });
      await expectState(store, states[complete]!, where);
      // The torn tail must be cut off, not buried under the next append.
      const next = cloneExpected(states[complete]!);
      if (next.conversations.length === 0) {
        await store.storeConversation(conversation("after"));
        next.conversations.push("after");
      } else {
        await store.storeMessage(message("after", next.conversations[0]!, 9_999));
        next.messages.set("after", {
          version: 0,
          flagged: false,
          conversationId: next.conversations[0]!,
        });
      }
      await store.close();
      const reopened = await JsonMessageStore.open({ path });
      await expectState(reopened, next, `${where}, after one more write and a reopen`);
      await reopened.close();
    }
  });

  it("a second process opening the same file gets StoreLockedError", async () => {
    const path = join(tempDir("json-lock"), "db.json");
    const holder = holdOpen(path, "held");
    try {
      expect(await holder.status).toBe(`open ${holder.pid}`);
      for (const open of [
        () => JsonMessageStore.open({ path }),
        () => MessageStore.initialize({ storage: "json", path }),
      ]) {
        const error = await open().then(
          (s) => s.close().then(() => null),
          (e: unknown) => e,
        );
        expect(isMessageStoreError(error) && error.code).toBe("STORE_LOCKED");
        expect((error as Error).message).toContain(String(holder.pid));
      }
      // And the other way round: a child cannot open what this process holds.
      const mine = await JsonMessageStore.open({ path: join(tempDir("json-lock"), "mine.json") });
      const contender = holdOpen(mine.driver.path);
      expect(await contender.status).toMatch(/^error STORE_LOCKED .*in process \d+/);
      await contender.release();
      await mine.close();
    } finally {
      await holder.release();
    }
    // Released cleanly: the file opens, with what the holder wrote.
    const store = await JsonMessageStore.open({ path });
    expect(await store.getConversation("held")).not.toBeNull();
    await store.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("a stale lock is taken over: dead owner, vanished pid, recycled pid", async () => {
    const path = join(tempDir("json-stale"), "db.json");
    const holder = holdOpen(path, "before-kill");
    expect(await holder.status).toBe(`open ${holder.pid}`);
    await holder.kill();
    expect(JSON.parse(readFileSync(`${path}.lock`, "utf8")).pid).toBe(holder.pid);
    const store = await JsonMessageStore.open({ path });
    expect(await store.getConversation("before-kill")).not.toBeNull();
    expect(JSON.parse(readFileSync(`${path}.lock`, "utf8")).pid).toBe(process.pid);
    await store.close();

    const lockOf = (pid: number, processStart: string | null) =>
      `${JSON.stringify({ pid, hostname: hostname(), token: `t${pid}`, processStart, acquiredAt: new Date().toISOString() })}\n`;
    // A pid that does not exist; then a live process (our parent) whose start time differs from
    // the lock's, i.e. the pid was recycled after the owner died.
    for (const lock of [lockOf(4_194_000, null), lockOf(process.ppid, "1")]) {
      writeFileSync(`${path}.lock`, lock);
      const s = await JsonMessageStore.open({ path });
      expect(await s.getConversation("before-kill")).not.toBeNull();
      await s.close();
    }
    // A takeover whose claimant died mid-way (its claim left behind) is finished by the next open;
    // one whose claimant is alive is waited for, then reported.
    const staleLock = lockOf(4_194_001, null);
    const claim = `${path}.lock.takeover-${createHash("sha256").update(staleLock).digest("hex").slice(0, 16)}`;
    writeFileSync(`${path}.lock`, staleLock);
    writeFileSync(claim, lockOf(4_194_002, null));
    const after = await JsonMessageStore.open({ path });
    expect(await after.getConversation("before-kill")).not.toBeNull();
    await after.close();
    expect(existsSync(claim)).toBe(false);
    writeFileSync(`${path}.lock`, staleLock);
    writeFileSync(claim, lockOf(process.ppid, null));
    const waited = await JsonMessageStore.open({ path }).catch((e: unknown) => e);
    expect(isMessageStoreError(waited) && waited.code).toBe("STORE_LOCKED");
    rmSync(claim);
    rmSync(`${path}.lock`);
    // Not too eager: a live owner that cannot be told apart from the writer keeps its lock.
    writeFileSync(`${path}.lock`, lockOf(process.ppid, null));
    const error = await JsonMessageStore.open({ path }).catch((e: unknown) => e);
    expect(isMessageStoreError(error) && error.code).toBe("STORE_LOCKED");
  });

  it("processes racing for one stale lock: exactly one wins", async () => {
    const path = join(tempDir("json-race"), "db.json");
    for (let round = 0; round < 10; round++) {
      const victim = holdOpen(path);
      expect(await victim.status).toMatch(/^open /);
      await victim.kill();
      const contenders = [holdOpen(path), holdOpen(path), holdOpen(path), holdOpen(path)];
      const statuses = await Promise.all(contenders.map((c) => c.status));
      await Promise.all(contenders.map((c) => c.release()));
      const winners = statuses.filter((s) => s.startsWith("open "));
      expect(winners, `round ${round}: ${statuses.join(" | ")}`).toHaveLength(1);
      for (const s of statuses.filter((x) => !x.startsWith("open "))) {
        expect(s, `round ${round}`).toMatch(/^error STORE_LOCKED /);
      }
    }
  });
});
