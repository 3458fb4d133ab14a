import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { StoreLockedError } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { JsonMessageStore } from "../src/index.js";
import { FIXTURES, tempDir } from "./helpers.js";

/** Starts a child process holding the store open; resolves once it reports "open". */
function holdOpen(path: string) {
  const child = spawn(process.execPath, [join(FIXTURES, "hold-open.mjs"), path]);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const opened = new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("open\n")) resolve();
    });
    child.stderr.on("data", (d) => reject(new Error(String(d))));
    child.on("exit", () => reject(new Error("child exited before opening")));
  });
  return { child, opened, exited };
}

/** The pid of a process that has exited (and was reaped). */
function deadPid(): number {
  const result = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(result.stdout.toString());
}

describe("file lock", () => {
  it("makes a second process fail with StoreLockedError while the first is alive", async () => {
    const path = join(tempDir(), "db.json");
    const holder = holdOpen(path);
    await holder.opened;
    const error = await JsonMessageStore.open({ path }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreLockedError);
    expect((error as StoreLockedError).code).toBe("STORE_LOCKED");
    expect((error as Error).message).toContain(`process ${holder.child.pid}`);
    holder.child.stdin.end(); // the holder closes cleanly
    expect(await holder.exited).toBe(0);
    const store = await JsonMessageStore.open({ path });
    await store.close();
  });

  it("holds the owner's pid and a token in <path>.lock, removed on close", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    const owner = JSON.parse(readFileSync(`${path}.lock`, "utf8"));
    expect(owner).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(typeof owner.token).toBe("string");
    await store.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("takes over a stale lock whose process is gone", async () => {
    const path = join(tempDir(), "db.json");
    const pid = deadPid();
    const stale = {
      pid,
      hostname: hostname(),
      token: "stale",
      processStart: null,
      acquiredAt: "x",
    };
    writeFileSync(`${path}.lock`, JSON.stringify(stale));
    const store = await JsonMessageStore.open({ path });
    expect(JSON.parse(readFileSync(`${path}.lock`, "utf8")).pid).toBe(process.pid);
    await store.close();
    expect(readdirSync(join(path, ".."))).toEqual(["db.json"]); // no temporary lock files left
  });

  it("takes over a lock left by a killed process", async () => {
    const path = join(tempDir(), "db.json");
    const holder = holdOpen(path);
    await holder.opened;
    holder.child.kill("SIGKILL");
    await holder.exited;
    expect(existsSync(`${path}.lock`)).toBe(true);
    const store = await JsonMessageStore.open({ path });
    await store.close();
  });

  it("refuses a second open of the same file in the same process", async () => {
    const dir = tempDir();
    const path = join(dir, "db.json");
    const store = await JsonMessageStore.open({ path });
    await expect(JsonMessageStore.open({ path })).rejects.toBeInstanceOf(StoreLockedError);
    // Also through another spelling of the same path.
    await expect(JsonMessageStore.open({ path: join(dir, ".", "db.json") })).rejects.toBeInstanceOf(
      StoreLockedError,
    );
    await store.close();
    const again = await JsonMessageStore.open({ path });
    await again.close();
  });

  it("treats an unreadable lock file as held rather than guessing", async () => {
    const path = join(tempDir(), "db.json");
    writeFileSync(`${path}.lock`, "garbage");
    await expect(JsonMessageStore.open({ path })).rejects.toThrow(/unreadable/);
    expect(readFileSync(`${path}.lock`, "utf8")).toBe("garbage");
  });
});

describe(":memory:", () => {
  it("writes nothing to disk", async () => {
    const dir = tempDir();
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const store = await JsonMessageStore.open({ path: ":memory:" });
      expect(store.driver.path).toBe(":memory:");
      await store.storeConversation({ id: "c1", userId: "u1" });
      await store.storeMessage({
        id: "m1",
        conversationId: "c1",
        userId: "u1",
        role: "user",
        originalContent: "x",
        timestamp: 1,
      });
      expect((await store.getMessagesByConversationId("c1")).items).toHaveLength(1);
      await store.driver.compact();
      await store.close();
      expect(readdirSync(dir)).toEqual([]);
      // Two memory stores are independent and may coexist.
      const a = await JsonMessageStore.open({ path: ":memory:" });
      const b = await JsonMessageStore.open({ path: ":memory:" });
      await a.storeConversation({ id: "c1", userId: "u1" });
      expect(await b.getConversation("c1")).toBeNull();
      await Promise.all([a.close(), b.close()]);
    } finally {
      process.chdir(cwd);
    }
  });
});
