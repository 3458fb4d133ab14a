import { spawn } from "node:child_process";
import {
  chmodSync,
  linkSync,
  lstatSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { MessageStore, StoreLockedError } from "@message-store/core";
import { JsonMessageStore } from "@message-store/json";
import { describe, expect, it } from "vitest";
import { fixture } from "./support/child-process.js";
import { holdOpen } from "./support/json-holder.js";
import { conversation, message } from "./support/messages.js";
import { tempDir } from "./support/temp-dir.js";

const NOBODY = 65534;
const COMPACTIONS = 120;
const SECRET = "secret ".repeat(300);

/** What the other user's process managed to read (see fixtures/json-peek-other-uid.mjs). */
interface Peek {
  reads: Record<string, number>;
  denied: Record<string, number>;
  canary: number;
}

/** Starts the peeking process as uid `nobody`; `stop()` resolves with what it read. */
function peekAsNobody(path: string, canary: string) {
  const child = spawn(process.execPath, [fixture("json-peek-other-uid.mjs"), path, canary], {
    uid: NOBODY,
    gid: NOBODY,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => {
    out += c;
  });
  child.stderr.setEncoding("utf8").on("data", (c: string) => {
    err += c;
  });
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  return {
    async stop(): Promise<Peek> {
      child.stdin.end();
      await closed;
      if (!out.trim()) throw new Error(`peeking process printed nothing: ${err}`);
      return JSON.parse(out) as Peek;
    },
  };
}

describe("json file identity and permissions", () => {
  it(`a chmod 600 store: another uid never reads any of its files over ${COMPACTIONS} compactions and reopenings`, async () => {
    expect(process.getuid?.(), "this test needs root to start a process as another uid").toBe(0);
    const dir = tempDir("json-perms");
    chmodSync(dir, 0o755); // the other user may enter the directory: only the files' modes stop it
    const path = join(dir, "db.json");
    const canary = join(dir, "canary");
    writeFileSync(canary, "readable by everyone\n", { mode: 0o644 });
    chmodSync(canary, 0o644);
    await (await JsonMessageStore.open({ path })).close();
    chmodSync(path, 0o600);

    const peek = peekAsNobody(path, canary);
    let store = await JsonMessageStore.open({ path });
    await store.storeConversation(conversation("c"));
    for (let i = 0; i < COMPACTIONS; i++) {
      await store.storeMessage(message(`m${i}`, "c", i, 0, { originalContent: `${SECRET}${i}` }));
      await store.driver.compact();
      if (i % 20 === 19) {
        // Reopening creates the lock file and the journal afresh.
        await store.close();
        store = await JsonMessageStore.open({ path });
      }
    }
    await store.close();
    const seen = await peek.stop();
    console.info(`other uid: ${JSON.stringify(seen)}`);

    expect(seen.canary).toBeGreaterThan(0); // it could reach the directory
    expect(seen.reads).toEqual({ "": 0, ".tmp": 0, ".journal": 0, ".lock": 0 });
    // It did find the temporary files and the journal, and was refused by their mode.
    expect(seen.denied[".tmp"]).toBeGreaterThan(0);
    expect(seen.denied[".journal"]).toBeGreaterThan(0);
    expect(seen.denied[".lock"]).toBeGreaterThan(0);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("a second process opening the store through a symlink is refused while the first holds it, both ways", async () => {
    const dir = tempDir("json-symlink");
    const real = join(dir, "real.json");
    const alias = join(dir, "alias.json");
    await (await JsonMessageStore.open({ path: real })).close();
    symlinkSync("real.json", alias);

    for (const [first, second] of [
      [real, alias],
      [alias, real],
    ] as const) {
      const holder = holdOpen(first, "held");
      expect(await holder.status).toMatch(/^open /);
      const other = holdOpen(second);
      expect(await other.status).toMatch(new RegExp(`^error STORE_LOCKED .*process ${holder.pid}`));
      await other.release();
      const inProcess = await JsonMessageStore.open({ path: second }).catch((e: unknown) => e);
      expect(inProcess).toBeInstanceOf(StoreLockedError);
      await holder.release();
    }
  });

  it("compaction through a symlink writes the real file and keeps the symlink", async () => {
    const dir = tempDir("json-symlink-compact");
    const real = join(dir, "real.json");
    const alias = join(dir, "alias.json");
    await (await JsonMessageStore.open({ path: real })).close();
    symlinkSync(real, alias);
    const store = await JsonMessageStore.open({ path: alias });
    expect(store.driver.path).toBe(real);
    await store.storeConversation(conversation("c"));
    await store.storeMessage(message("via-alias", "c", 1));
    await store.driver.compact();
    await store.close();
    expect(lstatSync(alias).isSymbolicLink()).toBe(true);
    expect(readlinkSync(alias)).toBe(real);
    expect(readFileSync(real, "utf8")).toContain("via-alias");
    const reopened = await JsonMessageStore.open({ path: real });
    expect((await reopened.getMessage("via-alias"))?.id).toBe("via-alias");
    await reopened.close();
  });

  it("a second process opening the store through a hard link is refused while the first holds it", async () => {
    const dir = tempDir("json-hardlink");
    const real = join(dir, "real.json");
    const hard = join(dir, "hard.json");
    await (await JsonMessageStore.open({ path: real })).close();
    const holder = holdOpen(real, "held");
    expect(await holder.status).toMatch(/^open /);
    linkSync(real, hard);
    const other = holdOpen(hard);
    expect(await other.status).toMatch(/^error STORE_LOCKED .*2 hard links/);
    await other.release();
    await holder.release(); // the holder was not disturbed: it closes (and compacts) cleanly
    const reopened = await JsonMessageStore.open({ path: real }).catch((e: unknown) => e);
    // Its compaction replaced real.json, so the two names are separate files again.
    expect(reopened).toBeInstanceOf(MessageStore);
    expect(await (reopened as JsonMessageStore).getConversation("held")).not.toBeNull();
    await (reopened as JsonMessageStore).close();
  });
});
