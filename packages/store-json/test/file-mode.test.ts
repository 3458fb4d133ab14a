import { chmodSync, existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonMessageStore } from "../src/index.js";
import { message, tempDir } from "./helpers.js";

/**
 * Conversations are personal data: a new store's files are readable by their owner only (0600),
 * unless `file_mode` says otherwise. Every file is checked with `stat`: the main file, the
 * journal, the lock file, and a compaction's temporary file when one is being written.
 */
const modeOf = (path: string) => statSync(path).mode & 0o777;

async function filesOf(config: { path: string; file_mode?: number }) {
  const store = await JsonMessageStore.open({ ...config, compact_threshold_bytes: 1 });
  await store.storeConversation({ id: "c", userId: "u1", createdAt: 1 });
  await store.storeMessage(message("m", "c", 1));
  const dir = join(config.path, "..");
  const names = readdirSync(dir).filter((n) => n.startsWith("db.json"));
  const modes = Object.fromEntries(names.map((n) => [n, modeOf(join(dir, n))]));
  await store.close();
  return modes;
}

describe("json file permissions", () => {
  it("a new store's files are created 0600 (the umask cannot widen them)", async () => {
    const previous = process.umask(0o000);
    try {
      const modes = await filesOf({ path: join(tempDir(), "db.json") });
      // A compaction's temporary file may be there too, while it is being written.
      expect(Object.keys(modes)).toEqual(
        expect.arrayContaining(["db.json", "db.json.journal", "db.json.lock"]),
      );
      for (const mode of Object.values(modes)) expect(mode.toString(8)).toBe("600");
    } finally {
      process.umask(previous);
    }
  });

  it("file_mode sets them otherwise; an existing store keeps its main file's bits", async () => {
    const path = join(tempDir(), "db.json");
    const modes = await filesOf({ path, file_mode: 0o640 });
    for (const mode of Object.values(modes)) expect(mode.toString(8)).toBe("640");
    chmodSync(path, 0o600);
    const reopened = await filesOf({ path, file_mode: 0o644 });
    for (const mode of Object.values(reopened)) expect(mode.toString(8)).toBe("600");
    expect(existsSync(`${path}.tmp`)).toBe(false);
  });

  it("refuses a file_mode that takes reading or writing from the owner", async () => {
    for (const file_mode of [0o400, 0o200, 0o1600, -1]) {
      await expect(
        JsonMessageStore.open({ path: join(tempDir(), "db.json"), file_mode }),
      ).rejects.toMatchObject({ code: "CONFIGURATION" });
    }
  });
});
