import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonMessageStore } from "../src/index.js";
import { FIXTURES, tempDir } from "./helpers.js";

/** Runs the writer child, SIGKILLs it after `killAfter` acknowledged ids, returns the ids. */
function writeThenKill(path: string, killAfter: number, threshold: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(FIXTURES, "writer.mjs"), path, String(threshold)]);
    let out = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (out.split("\n").length > killAfter) child.kill("SIGKILL");
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("exit", (_code, signal) => {
      if (signal !== "SIGKILL") reject(new Error(`writer exited on its own: ${stderr}`));
      // Only complete lines were acknowledged; a partial last line is not.
      else resolve(out.split("\n").slice(0, -1));
    });
  });
}

describe("kill -9", () => {
  it("loses no acknowledged write, across compactions", async () => {
    const path = join(tempDir(), "db.json");
    const acknowledged: string[] = [];
    for (let round = 0; round < 6; round++) {
      // A small threshold makes compactions (and kills during them) frequent.
      const ids = await writeThenKill(path, 50 + Math.floor(Math.random() * 400), 16 * 1024);
      acknowledged.push(...ids);
      const store = await JsonMessageStore.open({ path });
      for (const id of acknowledged) {
        const found = id.startsWith("c-")
          ? await store.getConversation(id)
          : await store.getMessage(id);
        expect(found, `acknowledged ${id} is missing after round ${round}`).not.toBeNull();
      }
      await store.close();
    }
  });
});

describe("a full disk", () => {
  it("fails the write with StorageError, leaves memory unchanged and loses nothing acknowledged", async () => {
    const path = join(tempDir(), "db.json");
    // RLIMIT_FSIZE makes writes past 64 KiB fail with EFBIG, as ENOSPC would on a full disk.
    const result = spawnSync("/bin/sh", [
      "-c",
      `ulimit -f 64 && exec "$0" "$@"`,
      process.execPath,
      join(FIXTURES, "write-until-full.mjs"),
      path,
    ]);
    expect(result.status, result.stderr.toString()).toBe(0);
    const report = JSON.parse(result.stdout.toString());
    expect(report.failure).toMatchObject({ name: "StorageError", code: "STORAGE" });
    expect(report.failure.message).toMatch(/EFBIG|ENOSPC/);
    expect(report.failedIsVisible).toBe(false);
    expect(report.inMemory).toEqual(report.acknowledged);
    expect(report.acknowledged.length).toBeGreaterThan(10);

    const store = await JsonMessageStore.open({ path });
    const page = await store.getMessagesByConversationId("c1");
    expect(page.items.map((m) => m.id)).toEqual(report.acknowledged);
    await store.close();
  });
});
