import { spawnSync } from "node:child_process";
import { rmSync, statfsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isMessageStoreError, type MessageStoreError } from "@message-store/core";
import { JsonMessageStore } from "@message-store/json";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture } from "./support/child-process.js";
import { conversation, message } from "./support/messages.js";
import { tempDir } from "./support/temp-dir.js";
import { mountTmpfs, unmount } from "./support/tmpfs.js";

let dir: string;
let method: "tmpfs" | "ulimit" = "tmpfs";

beforeAll(() => {
  dir = tempDir("json-full-disk");
  const { mounted, why } = mountTmpfs(dir, "1m");
  if (!mounted) {
    method = "ulimit";
    console.warn(`json full disk: cannot mount a tmpfs (${why}); falling back to ulimit -f`);
  }
  console.info(`json full disk: method ${method}`);
});
afterAll(() => {
  if (method === "tmpfs") unmount(dir);
});

const PAYLOAD = "x".repeat(2000);
const big = (id: string, ts: number) =>
  message(id, "c1", ts, 0, { originalContent: `${id}|v0|${PAYLOAD}` });

/**
 * Fills the rest of the file system with a filler file. Running out of space while writing it
 * (the store's own background writes took some of what `statfs` reported) fills it too: the
 * filler then holds what fit.
 */
function fillUp(name: string, leaveBytes: number): string {
  const fs = statfsSync(dir);
  const free = fs.bavail * fs.bsize;
  const filler = join(dir, name);
  try {
    writeFileSync(filler, Buffer.alloc(Math.max(0, free - leaveBytes)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  }
  return filler;
}

function expectStorageError(error: unknown, where: string): void {
  expect(isMessageStoreError(error), `${where}: ${error}`).toBe(true);
  const e = error as MessageStoreError;
  expect({ name: e.name, code: e.code }, where).toEqual({ name: "StorageError", code: "STORAGE" });
  expect(e.message, where).toMatch(
    /^\[message-store\] \[json\] could not .*(ENOSPC \(disk full\)|EFBIG)/,
  );
}

describe("json full disk", () => {
  it("a write to a full file system fails with StorageError, is never visible, and nothing acknowledged is lost", async () => {
    if (method === "ulimit") return fullDiskUnderUlimit();
    const path = join(dir, "db.json");
    const store = await JsonMessageStore.open({ path, compact_threshold_bytes: 48 * 1024 });
    await store.storeConversation(conversation("c1"));
    const filler = fillUp("filler", 200 * 1024);
    const acknowledged: string[] = [];
    let failures = 0;
    let n = 0;
    // Fill the last 200 KiB; compactions start failing first (they need room for a copy), then appends.
    for (; n < 500 && failures === 0; n++) {
      const id = `m${n}`;
      try {
        await store.storeMessage(big(id, 1000 + n));
        acknowledged.push(id);
      } catch (error) {
        failures++;
        expectStorageError(error, `write ${id}`);
        expect(await store.getMessage(id), `failed write ${id} is visible`).toBeNull();
      }
    }
    expect(failures, "the disk never filled up").toBe(1);
    expect(acknowledged.length).toBeGreaterThan(20);
    // More attempts on the full disk: small ones may fit, big ones and batches may not; each is
    // either acknowledged or invisible (a failed batch: none of it).
    for (let i = 0; i < 30; i++, n++) {
      const batch =
        i % 3 === 0
          ? [big(`m${n}a`, 1000 + n), big(`m${n}b`, 1000 + n)]
          : [i % 2 ? big(`m${n}`, 1000 + n) : message(`m${n}`, "c1", 1000 + n)];
      try {
        await store.storeMessages(batch);
        acknowledged.push(...batch.map((m) => m.id));
      } catch (error) {
        failures++;
        expectStorageError(error, `batch ${batch.map((m) => m.id)}`);
        for (const m of batch)
          expect(await store.getMessage(m.id), `failed ${m.id} is visible`).toBeNull();
      }
    }
    const inMemory = async (s: JsonMessageStore) =>
      (await s.getMessagesByConversationId("c1")).items.map((m) => m.id);
    expect(await inMemory(store), "memory drifted from what was acknowledged").toEqual(
      acknowledged,
    );

    // Space comes back: the same instance works again without a reopen.
    rmSync(filler);
    await store.storeMessage(big("after-free", 99_000));
    acknowledged.push("after-free");

    // Full again, then close: the final compaction may fail, but the journal still holds everything.
    const filler2 = fillUp("filler2", 0);
    const closed = await store.close().then(
      () => null,
      (e: unknown) => e,
    );
    if (closed !== null) expectStorageError(closed, "close on a full disk");
    rmSync(filler2);

    const reopened = await JsonMessageStore.open({ path });
    expect(
      await inMemory(reopened),
      "the file does not hold exactly what was acknowledged",
    ).toEqual(acknowledged);
    for (const id of acknowledged)
      expect((await reopened.getMessage(id))?.originalContent.startsWith(`${id}|v0`)).toBe(true);
    await reopened.close();
    console.info(
      `json full disk (tmpfs): ${acknowledged.length} acknowledged, ${failures} StorageErrors, close on full disk ${closed === null ? "succeeded" : "failed cleanly"}`,
    );
  });
});

/** The fallback: RLIMIT_FSIZE in a child makes writes past 256 KiB fail with EFBIG. */
async function fullDiskUnderUlimit(): Promise<void> {
  const path = join(tempDir("json-ulimit"), "db.json");
  const r = spawnSync(
    "/bin/sh",
    [
      "-c",
      'ulimit -f 256 && exec "$0" "$@"',
      process.execPath,
      fixture("json-fill-ulimit.mjs"),
      path,
    ],
    { encoding: "utf8" },
  );
  expect(r.status, r.stderr).toBe(0);
  const report = JSON.parse(r.stdout);
  expect(report.failure).toMatchObject({ name: "StorageError", code: "STORAGE" });
  expect(report.failure.message).toMatch(/^\[message-store\] \[json\] could not .*EFBIG/);
  expect(report.failedIsVisible).toBe(false);
  expect(report.inMemory).toEqual(report.acknowledged);
  expect(report.acknowledged.length).toBeGreaterThan(20);
  const store = await JsonMessageStore.open({ path });
  expect((await store.getMessagesByConversationId("c1")).items.map((m) => m.id)).toEqual(
    report.acknowledged,
  );
  await store.close();
}
