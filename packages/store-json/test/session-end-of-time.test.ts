import { join } from "node:path";
import { IntegrityError } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { JsonMessageStore } from "../src/index.js";
import { message, tempDir } from "./helpers.js";

/**
 * A message at `Number.MAX_SAFE_INTEGER` puts its conversation's activity at the end of time:
 * `storeSessionMessages` refuses new turns inside its write with a clear `IntegrityError`, and
 * nothing of the refused call reaches the journal.
 */
describe("storeSessionMessages at the end of time", () => {
  it("refuses new turns with IntegrityError, nothing stored, also after a reopen", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await store.storeConversation({ id: "s", userId: "u1", createdAt: 1 });
    await store.storeMessage(message("last", "s", Number.MAX_SAFE_INTEGER - 1));
    const turn = (id: string) => ({ id, role: "user" as const, content: id });
    // One turn still fits at MAX_SAFE_INTEGER; two do not, and neither is stored.
    const refused = store.storeSessionMessages("s", [turn("a"), turn("b")], { userId: "u1" });
    await expect(refused).rejects.toThrow(IntegrityError);
    await expect(refused).rejects.toThrow(/activity is at the end of time.*nothing was stored/);
    const [fits] = await store.storeSessionMessages("s", [turn("c")], { userId: "u1" });
    expect(fits!.timestamp).toBe(Number.MAX_SAFE_INTEGER);
    await expect(store.storeSessionMessages("s", [turn("d")], { userId: "u1" })).rejects.toThrow(
      /lastActivityAt 9007199254740991/,
    );
    await store.close();
    const reopened = await JsonMessageStore.open({ path });
    const ids = (await reopened.loadSessionMessages("s")).map((m) => m.id);
    expect(ids).toEqual(["last", "c"]);
    await expect(reopened.storeSessionMessages("s", [turn("e")], { userId: "u1" })).rejects.toThrow(
      IntegrityError,
    );
    await reopened.close();
  });
});
