import { describe, expect, it } from "vitest";
import {
  ensureConversation,
  NotFoundError,
  UnsupportedOperationError,
  ValidationError,
} from "../../src/index.js";
import { recordingStore } from "../support/recording-driver.js";

describe("ensureConversation", () => {
  it("creates the owner's conversation once, then returns it unchanged", async () => {
    const s = recordingStore();
    const created = await ensureConversation(s, "c", { userId: "u1", agentId: "bot", title: "T" });
    expect(created).toMatchObject({ id: "c", userId: "u1", agentId: "bot", title: "T" });
    const again = await ensureConversation(s, "c", { userId: "u1", title: "other" });
    expect(again).toEqual(created);
    expect(await s.getConversation("c")).toEqual(created);
  });

  it("another user's conversation is a NotFoundError and stays untouched", async () => {
    const s = recordingStore();
    const theirs = await ensureConversation(s, "c", { userId: "u1" });
    await expect(ensureConversation(s, "c", { userId: "u2" })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect(await s.getConversation("c")).toEqual(theirs);
  });

  it("two users racing to create one id: one gets it, the other NotFoundError", async () => {
    const s = recordingStore();
    const results = await Promise.allSettled([
      ensureConversation(s, "race", { userId: "u1" }),
      ensureConversation(s, "race", { userId: "u2" }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(NotFoundError);
  });

  it("tenants: creates in the tenant, refuses another tenant's", async () => {
    const s = recordingStore();
    const c = await ensureConversation(s, "c", { userId: "u1", tenantId: "t1" });
    expect(c.tenantId).toBe("t1");
    await expect(
      ensureConversation(s, "c", { userId: "u1", tenantId: "t2" }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it("bad input and a tenant on a store without tenants are typed errors", async () => {
    await expect(ensureConversation(recordingStore(), "c", { userId: "" })).rejects.toBeInstanceOf(
      ValidationError,
    );
    const plain = recordingStore({ capabilities: { tenants: false } });
    await expect(
      ensureConversation(plain, "c", { userId: "u1", tenantId: "t" }),
    ).rejects.toBeInstanceOf(UnsupportedOperationError);
    expect(await ensureConversation(plain, "c", { userId: "u1" })).toMatchObject({ id: "c" });
  });
});
