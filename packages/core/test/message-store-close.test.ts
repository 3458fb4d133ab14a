import { describe, expect, it } from "vitest";
import { type MessageStore, StoreClosedError } from "../src/index.js";
import type { RecordingDriver } from "./support/recording-driver.js";
import { msg, seeded } from "./support/store-fixtures.js";

/** Every public method with arguments that would be valid. */
const validCalls: [string, (s: MessageStore<RecordingDriver>) => Promise<unknown>][] = [
  ["storeConversation", (s) => s.storeConversation({ id: "c", userId: "u" })],
  ["getConversation", (s) => s.getConversation("c")],
  ["getConversationsByUserId", (s) => s.getConversationsByUserId("u")],
  ["listConversations", (s) => s.listConversations()],
  ["deleteConversation", (s) => s.deleteConversation("c")],
  ["storeMessage", (s) => s.storeMessage(msg("m", 1))],
  ["storeMessages", (s) => s.storeMessages([msg("m", 1)])],
  ["storeMessages([])", (s) => s.storeMessages([])],
  ["getMessage", (s) => s.getMessage("m")],
  ["flagMessage", (s) => s.flagMessage("m")],
  ["getMessagesByConversationId", (s) => s.getMessagesByConversationId("c")],
  ["getImmediateContext", (s) => s.getImmediateContext("c", 3)],
  ["getImmediateContext(0)", (s) => s.getImmediateContext("c", 0)],
  [
    "storeTurnTrace",
    (s) =>
      s.storeTurnTrace({
        id: "t",
        messageId: "m",
        conversationId: "c",
        agentId: "a",
        timestamp: 1,
        totalTokens: 0,
        totalLatencyMs: 0,
      }),
  ],
  ["getTurnTraceByMessageId", (s) => s.getTurnTraceByMessageId("m")],
  ["getTurnTracesByAgentId", (s) => s.getTurnTracesByAgentId("a")],
  ["queryTurnTraces", (s) => s.queryTurnTraces({})],
  ["summarizeUsage", (s) => s.summarizeUsage({ since: 0, until: 1, bucket: "day" })],
  ["deleteUserData", (s) => s.deleteUserData("u")],
  ["searchMessages", (s) => s.searchMessages({ embedding: [1] })],
  ["forUser", async (s) => s.forUser("u")],
];

describe("MessageStore close()", () => {
  it.each(validCalls)("%s rejects with StoreClosedError after close", async (_, call) => {
    const store = await seeded();
    await store.close();
    await expect(call(store)).rejects.toBeInstanceOf(StoreClosedError);
    expect(store.driver.ops).toEqual(["close"]);
  });

  it("rejects even invalid input with StoreClosedError (closed is checked first)", async () => {
    const store = await seeded();
    await store.close();
    await expect(store.getConversation(42 as never)).rejects.toBeInstanceOf(StoreClosedError);
    await expect(store.storeMessages([msg("a", 1), msg("a", 1)])).rejects.toBeInstanceOf(
      StoreClosedError,
    );
  });

  it("waits for calls in flight, then calls the driver's close once", async () => {
    const store = await seeded();
    let open!: () => void;
    store.driver.gate = new Promise((resolve) => {
      open = resolve;
    });
    const inFlight = store.storeMessage(msg("m", 1));
    const failing = store.storeMessage(msg("x", 1, { conversationId: "missing" }));
    const closing = store.close();
    expect(store.closed).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(store.driver.closeCount).toBe(0);
    open();
    await closing;
    expect(store.driver.closeCount).toBe(1);
    await expect(inFlight).resolves.toMatchObject({ id: "m" });
    await expect(failing).rejects.toThrow(/does not exist/);
    expect(store.driver.ops).toEqual(["storeMessages", "storeMessages", "close"]);
  });

  it("is idempotent: every call resolves when the first finishes", async () => {
    const store = await seeded();
    const first = store.close();
    const second = store.close();
    expect(second).toBe(first);
    await Promise.all([first, second, store.close()]);
    expect(store.driver.closeCount).toBe(1);
  });

  it("Symbol.asyncDispose closes the store", async () => {
    const store = await seeded();
    {
      await using disposable = store;
      expect(disposable.closed).toBe(false);
    }
    expect(store.closed).toBe(true);
    expect(store.driver.closeCount).toBe(1);
    await store[Symbol.asyncDispose]();
    expect(store.driver.closeCount).toBe(1);
  });
});
