import type { MessageStoreApi } from "@message-store/core";
import { dumpStore, type StoreDump } from "../dump.js";
import { conversation, message, T0, trace } from "../fixtures.js";
import { expectRule } from "../rule-check.js";
import type { ContractCase } from "./contract-case.js";

const READ_ONCE =
  "a view reads each argument once: an argument that answers differently when read again cannot write outside the view";

/** Adds a `userId` getter that answers "mallory" on its first read and "alice" afterwards. */
function twoFaced<T extends object>(value: T): T {
  let reads = 0;
  return Object.defineProperty({ ...value }, "userId", {
    get: () => (reads++ === 0 ? "mallory" : "alice"),
    enumerable: true,
  });
}

/** Everything of alice's, as the dump shows it. */
const alicePart = (dump: StoreDump) => ({
  conversations: dump.conversationsByUser.alice,
  conversation: dump.conversations["ro-alice"],
  transcript: dump.transcripts["ro-alice"],
  traces: dump.traces.filter((t) => t.userId === "alice" || t.conversationId === "ro-alice"),
});

/**
 * Mallory's view is handed write arguments whose `userId` says "mallory" when the view checks
 * it and "alice" when read again: nothing of alice's may change, whatever the call resolves to.
 */
export const viewReadsArgumentsOnce: ContractCase = {
  id: "view-reads-arguments-once",
  rule: READ_ONCE,
  title:
    "arguments whose userId getter answers differently on a second read cannot take a write through forUser(mallory) into alice's records",
  async run({ store }) {
    const c = await store.storeConversation(
      conversation({ id: "ro-alice", userId: "alice", title: "alice's" }),
    );
    const m = await store.storeMessage(
      message(c, { id: "ro-alice-m", role: "assistant", timestamp: T0 }),
    );
    const scope = { userIds: ["alice", "mallory"], messageIds: ["ro-planted-m"] };
    const mallory: MessageStoreApi = store.forUser("mallory");
    const planted = message(c, { id: "ro-planted-m", originalContent: "planted" });
    const attempts: [string, () => Promise<unknown>][] = [
      [
        'storeSessionMessages("ro-alice", turns, { get userId() })',
        () =>
          mallory.storeSessionMessages(
            "ro-alice",
            [{ role: "user", content: "planted" }],
            twoFaced({ userId: "mallory" }),
          ),
      ],
      [
        "storeConversation({ id: ro-alice, get userId() })",
        () =>
          mallory.storeConversation(twoFaced(conversation({ id: "ro-alice", title: "hijacked" }))),
      ],
      ["storeMessage({ …, get userId() })", () => mallory.storeMessage(twoFaced(planted))],
      ["storeMessages([{ …, get userId() }])", () => mallory.storeMessages([twoFaced(planted)])],
      [
        "storeTurnTrace({ …, get userId() })",
        () => mallory.storeTurnTrace(twoFaced(trace(m, { id: "ro-planted-t" }))),
      ],
      [
        "storeTurnTraces([{ …, get userId() }])",
        () => mallory.storeTurnTraces([twoFaced(trace(m, { id: "ro-planted-t" }))]),
      ],
    ];
    const before = alicePart(await dumpStore(store, scope));
    for (const [label, attempt] of attempts) {
      try {
        await attempt();
      } catch {
        // Any refusal is fine: what matters is what is stored.
      }
      expectRule(
        READ_ONCE,
        `alice's records after forUser("mallory").${label}`,
        alicePart(await dumpStore(store, scope)),
        before,
      );
    }
  },
};
