import { describe, expect, it } from "vitest";
import {
  ConfigurationError,
  IntegrityError,
  MessageStore,
  NotFoundError,
  type SessionOptions,
} from "../src/index.js";
import {
  type RecordingDriver,
  recordingDriver,
  recordingStore,
} from "./support/recording-driver.js";
import { msg } from "./support/store-fixtures.js";

/** Alice and Bob, a conversation each with one traced message. */
async function aliceAndBob(): Promise<MessageStore<RecordingDriver>> {
  const store = recordingStore();
  for (const user of ["alice", "bob"]) {
    await store.storeConversation({ id: `${user}-c`, userId: user, createdAt: 1 });
    await store.storeMessage(msg(`${user}-m`, 2, { conversationId: `${user}-c`, userId: user }));
    await store.storeTurnTrace({
      id: `${user}-t`,
      messageId: `${user}-m`,
      conversationId: `${user}-c`,
      agentId: "a",
      timestamp: 2,
      totalTokens: 0,
      totalLatencyMs: 0,
    });
  }
  store.driver.calls.length = 0;
  return store;
}

describe("a view's scope travels inside the driver request", () => {
  it.each([
    ["getConversation", (s: MessageStore, id: string) => s.getConversation(`${id}-c`)],
    ["getMessage", (s: MessageStore, id: string) => s.getMessage(`${id}-m`)],
    [
      "getTurnTraceByMessageId",
      (s: MessageStore, id: string) => s.getTurnTraceByMessageId(`${id}-m`),
    ],
  ] as const)("%s by id through a view is one driver call, scoped", async (op, read) => {
    const store = await aliceAndBob();
    const alice = store.forUser("alice");
    expect(await read(alice, "bob")).toBeNull();
    expect(await read(alice, "alice")).toMatchObject({ userId: "alice" });
    expect(store.driver.ops).toEqual([op, op]);
    expect(store.driver.calls.map((c) => c.request.scope)).toEqual([
      { userId: "alice" },
      { userId: "alice" },
    ]);
  });

  it("writes by id carry the scope, and out of it change nothing", async () => {
    const store = await aliceAndBob();
    const alice = store.forUser("alice");
    expect(await alice.deleteMessage("bob-m")).toBe(false);
    expect(await alice.softDeleteConversation("bob-c")).toBe(false);
    expect(store.driver.calls.map((c) => [c.op, c.request.scope])).toEqual([
      ["deleteMessage", { userId: "alice" }],
      ["softDeleteConversation", { userId: "alice" }],
    ]);
    expect(await store.getMessage("bob-m")).not.toBeNull();
    expect(await store.getConversation("bob-c")).not.toBeNull();
  });
});

describe("owner refusals through a view", () => {
  /** The error of `write`, with every id of `ids` replaced by `<id>`. */
  async function refusal(write: () => Promise<unknown>, id: string) {
    const error = await write().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    return (error as Error).message.replaceAll(JSON.stringify(id), "<id>");
  }

  it("answer NotFoundError, worded alike for another owner's record and a missing one", async () => {
    const store = await aliceAndBob();
    const alice = store.forUser("alice");
    const into = (conversationId: string) => () =>
      alice.storeMessage(msg("x", 3, { conversationId, userId: "alice" }));
    const foreign = await refusal(into("bob-c"), "bob-c");
    expect(foreign).toBe("[message-store] [memory] conversation <id> does not exist");
    expect(await refusal(into("nobody-c"), "nobody-c")).toBe(foreign);

    const traceOn = (messageId: string) => () =>
      alice.storeTurnTrace({
        id: "x-t",
        messageId,
        conversationId: "alice-c",
        agentId: "a",
        timestamp: 3,
        totalTokens: 0,
        totalLatencyMs: 0,
      });
    const foreignMessage = await refusal(traceOn("bob-m"), "bob-m");
    expect(foreignMessage).toBe("[message-store] [memory] message <id> does not exist");
    expect(await refusal(traceOn("nobody-m"), "nobody-m")).toBe(foreignMessage);
    expect(await store.getMessage("x")).toBeNull();
    expect(await store.getTurnTraceByMessageId("bob-m")).toMatchObject({ id: "bob-t" });
  });

  it("the unscoped store gets the driver's IntegrityError", async () => {
    const store = await aliceAndBob();
    const error = await store
      .storeMessage(msg("x", 3, { conversationId: "bob-c", userId: "alice" }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IntegrityError);
    expect(error).not.toBeInstanceOf(NotFoundError);
  });
});

describe("arguments are read once", () => {
  it("a getter that answers differently on a second read cannot redirect a session write", async () => {
    const store = await aliceAndBob();
    let reads = 0;
    const options = {
      get userId() {
        reads++;
        return reads === 1 ? "mallory" : "alice";
      },
    } as SessionOptions;
    const write = store
      .forUser("mallory")
      .storeSessionMessages("alice-c", [{ role: "user", content: "hijack" }], options);
    await expect(write).rejects.toBeInstanceOf(NotFoundError);
    expect(reads).toBe(1);
    const { request } = store.driver.calls.at(-1)!;
    expect(request.conversation.userId).toBe("mallory");
    expect(request.messages.map((m: { userId: string }) => m.userId)).toEqual(["mallory"]);
    expect((await store.getMessagesByConversationId("alice-c")).items.map((m) => m.id)).toEqual([
      "alice-m",
    ]);
  });
});

describe("new MessageStore(driver)", () => {
  it("refuses a driver that declares a capability without its methods", () => {
    const driver = recordingDriver();
    const { searchMessages: _, ...withoutSearch } = driver;
    expect(() => new MessageStore({ ...withoutSearch, capabilities: driver.capabilities })).toThrow(
      ConfigurationError,
    );
    expect(() => new MessageStore({ ...withoutSearch, capabilities: driver.capabilities })).toThrow(
      /declares semanticSearch but has no searchMessages\(\)/,
    );
    const plain = {
      ...withoutSearch,
      capabilities: { ...driver.capabilities, semanticSearch: false },
    };
    expect(new MessageStore(plain).capabilities.semanticSearch).toBe(false);
  });

  it("refuses a driver without a name or a required method", () => {
    const driver = recordingDriver();
    expect(() => new MessageStore({ ...driver, name: "" })).toThrow(ConfigurationError);
    const { getMessage: _, ...withoutRead } = driver;
    expect(() => new MessageStore(withoutRead as RecordingDriver)).toThrow(/has no getMessage\(\)/);
  });
});
