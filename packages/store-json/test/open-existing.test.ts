import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { NotFoundError } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { JsonMessageStore } from "../src/index.js";
import { tempDir } from "./helpers.js";

describe("create: false", () => {
  it("refuses a missing store with NotFoundError and creates nothing", async () => {
    const dir = tempDir();
    for (const path of [join(dir, "db.json"), join(dir, "missing", "deeper", "db.json")]) {
      const error = await JsonMessageStore.open({ path, create: false }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      expect((error as Error).message).toMatch(
        /^\[message-store\] \[json\] no message-store data at /,
      );
    }
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(join(dir, "missing"))).toBe(false);
  });

  it("opens an existing store as usual", async () => {
    const path = join(tempDir(), "db.json");
    const created = await JsonMessageStore.open({ path });
    await created.storeConversation({ id: "c", userId: "u" });
    await created.close();
    const store = await JsonMessageStore.open({ path, create: false });
    expect(await store.getConversation("c")).not.toBeNull();
    await store.close();
  });
});
