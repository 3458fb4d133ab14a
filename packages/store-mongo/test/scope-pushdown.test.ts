import { isMessageStoreError } from "@message-store/core";
import type { CommandStartedEvent, Document } from "mongodb";
import { describe, expect, it } from "vitest";
import { conv, type Fixture, msg, openFixture, traceOf } from "./helpers.js";

/** The commands `op` sends, with the filters each one carries. */
async function commandsOf(f: Fixture, op: () => Promise<unknown>): Promise<Document[]> {
  const sent: Document[] = [];
  const listen = (e: CommandStartedEvent) => {
    if (e.commandName !== "commitTransaction") sent.push(e.command);
  };
  f.client.on("commandStarted", listen);
  try {
    await op();
  } finally {
    f.client.off("commandStarted", listen);
  }
  return sent;
}

/** Every filter a command carries (find, findAndModify, update, delete). */
function filtersOf(command: Document): Document[] {
  if ("find" in command) return [command.filter];
  if ("findAndModify" in command) return [command.query];
  if ("update" in command) return command.updates.map((u: Document) => u.q);
  if ("delete" in command) return command.deletes.map((d: Document) => d.q);
  return [];
}

async function code(promise: Promise<unknown>): Promise<unknown> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  return isMessageStoreError(error) ? error.code : error;
}

describe.each([
  { name: "replica set (transactions)", standalone: false },
  { name: "standalone (no transactions)", standalone: true },
])("the scope is part of every command: $name", ({ standalone }) => {
  async function seed() {
    const f = await openFixture({ standalone });
    for (const [c, userId] of [
      ["a1", "alice"],
      ["a2", "alice"],
      ["b1", "bob"],
    ] as const) {
      await f.store.storeConversation(conv(c, { userId, tenantId: "t" }));
      await f.store.storeMessage(msg(`${c}-m`, c, 1, { userId, role: "assistant" }));
      await f.store.storeTurnTrace(traceOf(`${c}-t`, `${c}-m`, c, { userId }));
    }
    return f;
  }

  it("a view's reads and writes by id send one command per step, each filtered on its owner", async () => {
    const f = await seed();
    const alice = f.store.forUser("alice");
    const calls: [string, () => Promise<unknown>, unknown][] = [
      ["getConversation", () => alice.getConversation("b1"), null],
      ["getMessage", () => alice.getMessage("b1-m"), null],
      ["getTurnTraceByMessageId", () => alice.getTurnTraceByMessageId("b1-m"), null],
      ["transcript", async () => (await alice.getMessagesByConversationId("b1")).items, []],
      ["context", () => alice.getImmediateContext("b1", 5), []],
      ["flagMessage", () => code(alice.flagMessage("b1-m")), "NOT_FOUND"],
      ["softDeleteMessage", () => alice.softDeleteMessage("b1-m"), false],
      ["softDeleteConversation", () => alice.softDeleteConversation("b1"), false],
      ["deleteMessage", () => alice.deleteMessage("b1-m"), false],
      ["deleteConversation", () => alice.deleteConversation("b1"), false],
      [
        "setEmbeddings",
        () => alice.setEmbeddings([{ id: "b1-m", originalContent: "hello", embedding: [1] }]),
        0,
      ],
    ];
    const reads = ["getConversation", "getMessage", "getTurnTraceByMessageId"];
    for (const [name, call, expected] of calls) {
      let result: unknown;
      const sent = await commandsOf(f, async () => {
        result = await call();
      });
      expect(result, name).toEqual(expected);
      if (reads.includes(name)) expect(sent, name).toHaveLength(1);
      const filters = sent.flatMap(filtersOf);
      expect(filters.length, name).toBeGreaterThan(0);
      for (const filter of filters)
        expect(filter.userId, `${name}: ${JSON.stringify(filter)}`).toBe("alice");
    }
    // Bob's records are all still there, untouched.
    expect(await f.store.getMessage("b1-m")).toMatchObject({ isFlagged: false, deletedAt: null });
    expect(await f.store.getTurnTraceByMessageId("b1-m")).not.toBeNull();
    expect(await f.store.getConversation("b1")).toMatchObject({ deletedAt: null });
  });

  it("another owner's record is refused as missing through a view; a move between the caller's own conversations is an IntegrityError", async () => {
    const f = await seed();
    const alice = f.store.forUser("alice");
    // Another user's conversation, message id and trace id: "does not exist".
    expect(await code(alice.storeMessage(msg("x", "b1", 2, { userId: "alice" })))).toBe(
      "NOT_FOUND",
    );
    expect(await code(alice.storeMessage(msg("b1-m", "a1", 2, { userId: "alice" })))).toBe(
      "NOT_FOUND",
    );
    expect(
      await code(alice.storeTurnTrace(traceOf("b1-t", "a1-m", "a1", { userId: "alice" }))),
    ).toBe("NOT_FOUND");
    expect(
      await code(alice.storeTurnTrace(traceOf("x-t", "b1-m", "b1", { userId: "alice" }))),
    ).toBe("NOT_FOUND");
    expect(
      await code(
        alice.storeSessionMessages("b1", [{ role: "user", content: "x" }], { userId: "alice" }),
      ),
    ).toBe("NOT_FOUND");
    // Unscoped, the same writes are IntegrityErrors.
    expect(await code(f.store.storeMessage(msg("x", "b1", 2, { userId: "alice" })))).toBe(
      "INTEGRITY",
    );
    // Alice's own records moving between her conversations: a plain IntegrityError, also through
    // the view (nothing of anyone else's is revealed).
    expect(await code(alice.storeMessage(msg("a1-m", "a2", 2, { userId: "alice" })))).toBe(
      "INTEGRITY",
    );
    expect(
      await code(alice.storeTurnTrace(traceOf("a1-t", "a2-m", "a2", { userId: "alice" }))),
    ).toBe("INTEGRITY");
    expect(
      await code(alice.storeTurnTrace(traceOf("y-t", "a1-m", "a2", { userId: "alice" }))),
    ).toBe("INTEGRITY");
    expect(await f.store.getMessage("a1-m")).toMatchObject({ conversationId: "a1" });
    expect(await f.store.getTurnTraceByMessageId("a1-m")).toMatchObject({ id: "a1-t" });
    expect(await f.store.getMessage("x")).toBeNull();
  });
});
