import type { MessageStoreApi } from "@message-store/core";
import { dumpStore } from "../dump.js";
import { conversation, message, T0, trace } from "../fixtures.js";
import { expectRule } from "../rule-check.js";
import type { ContractCase } from "./contract-case.js";

const SURVIVES =
  "everything stored, receipt order included, survives close, a backend restart and reopen";

/** Settles an open meaning of issue #13: receipt sequences survive a reopen (and a restart). */
export const survivesRestart: ContractCase = {
  id: "survives-restart",
  rule: SURVIVES,
  title: "records, flags, lastActivityAt and receipt order survive a restart of the backend",
  requires: ["persistent"],
  async run({ store, restart }) {
    const c = await store.storeConversation(conversation({ id: "sr-conv", userId: "sr-user" }));
    await store.storeMessages([
      message(c, { id: "sr-b", timestamp: T0 }),
      message(c, { id: "sr-a", timestamp: T0 }),
    ]);
    await store.storeMessage(message(c, { id: "sr-0", timestamp: T0, role: "assistant" }));
    await store.storeMessage(message(c, { id: "sr-late", timestamp: T0 + 50 }));
    await store.deleteMessage("sr-late"); // lastActivityAt keeps T0 + 50
    await store.flagMessage("sr-a");
    await store.storeTurnTrace(
      trace({ id: "sr-0", conversationId: c.id, userId: c.userId }, { id: "sr-t" }),
    );
    const scope = { userIds: ["sr-user"] };
    const before = await dumpStore(store, scope);
    const after: MessageStoreApi = await restart!();
    expectRule(SURVIVES, "dump after restart", await dumpStore(after, scope), before);
    await after.storeMessage(message(c, { id: "sr-after", timestamp: T0 }));
    const ids = (await after.getMessagesByConversationId(c.id)).items.map((m) => m.id);
    expectRule(SURVIVES, "transcript ids after restart (ties by receipt)", ids, [
      "sr-b",
      "sr-a",
      "sr-0",
      "sr-after",
    ]);
  },
};

const NO_ORPHANS =
  "deleteConversation, deleteMessage and deleteUserData leave no row behind the API";

/** With the adapter's `inspect()` hook: raw counts after cascade and erasure equal what the API shows. */
export const noOrphans: ContractCase = {
  id: "no-orphans",
  rule: NO_ORPHANS,
  title: "cascade, message delete and erasure leave no orphan rows (raw counts from inspect())",
  requires: ["inspect"],
  async run({ store, inspect }) {
    const counts = async () => {
      const raw = await inspect!();
      return {
        conversations: raw.conversations,
        messages: raw.messages,
        turnTraces: raw.turnTraces,
      };
    };
    expectRule(NO_ORPHANS, "inspect() of an empty store", await counts(), {
      conversations: 0,
      messages: 0,
      turnTraces: 0,
    });
    const seed = async (id: string, userId: string, n: number) => {
      const conv = await store.storeConversation(conversation({ id, userId }));
      const ms = await store.storeMessages(
        Array.from({ length: n }, (_, i) =>
          message(conv, { id: `${id}-m${i}`, role: "assistant", timestamp: T0 + i }),
        ),
      );
      for (const m of ms) await store.storeTurnTrace(trace(m, { id: `${m.id}-t`, userId }));
    };
    await seed("no-a", "no-u1", 3);
    await seed("no-b", "no-u1", 2);
    await seed("no-c", "no-u2", 2);
    expectRule(NO_ORPHANS, "inspect() after seeding", await counts(), {
      conversations: 3,
      messages: 7,
      turnTraces: 7,
    });
    await store.deleteConversation("no-a");
    expectRule(NO_ORPHANS, "inspect() after deleteConversation", await counts(), {
      conversations: 2,
      messages: 4,
      turnTraces: 4,
    });
    await store.deleteMessage("no-c-m0");
    expectRule(NO_ORPHANS, "inspect() after deleteMessage", await counts(), {
      conversations: 2,
      messages: 3,
      turnTraces: 3,
    });
    await store.deleteUserData("no-u1");
    expectRule(NO_ORPHANS, "inspect() after deleteUserData", await counts(), {
      conversations: 1,
      messages: 1,
      turnTraces: 1,
    });
  },
};
