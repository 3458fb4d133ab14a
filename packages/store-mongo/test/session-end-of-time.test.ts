import { IntegrityError } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { conv, msg, openFixture, T0, transcript } from "./helpers.js";

/**
 * A message at `Number.MAX_SAFE_INTEGER` puts its conversation's activity at the end of time:
 * `storeSessionMessages` has no later timestamp to give a new turn, and refuses inside its write
 * with a clear `IntegrityError` (nothing stored), on both deployments.
 */
describe.each([
  { name: "replica set (transactions)", standalone: false },
  { name: "standalone (no transactions)", standalone: true },
])("storeSessionMessages at the end of time: $name", ({ standalone }) => {
  it("refuses new turns with IntegrityError, nothing stored; a retry of stored turns still works", async () => {
    const { store } = await openFixture({ standalone });
    await store.storeConversation(conv("s"));
    await store.storeMessage(msg("last", "s", Number.MAX_SAFE_INTEGER - 1 - T0));
    const turn = (id: string) => ({ id, role: "user" as const, content: id });
    // One turn still fits at MAX_SAFE_INTEGER; two do not, and neither is stored.
    const refused = store.storeSessionMessages("s", [turn("a"), turn("b")], { userId: "user-1" });
    await expect(refused).rejects.toThrow(IntegrityError);
    await expect(refused).rejects.toThrow(/activity is at the end of time.*nothing was stored/);
    const [fits] = await store.storeSessionMessages("s", [turn("c")], { userId: "user-1" });
    expect(fits!.timestamp).toBe(Number.MAX_SAFE_INTEGER);
    await expect(
      store.storeSessionMessages("s", [turn("d")], { userId: "user-1" }),
    ).rejects.toThrow(/lastActivityAt 9007199254740991/);
    await store.storeSessionMessages("s", [turn("c")], { userId: "user-1" });
    expect(await transcript(store, "s")).toEqual(["last", "c"]);
    expect((await store.getConversation("s"))?.lastActivityAt).toBe(Number.MAX_SAFE_INTEGER);
  });
});
