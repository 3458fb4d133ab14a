import { CONTRACT_CASES, type ContractCase } from "@message-store/conformance";
import { MessageStore } from "@message-store/core";
import { MemoryDriver } from "@message-store/core/memory";
import { afterEach, describe, expect, it } from "vitest";
import { runModelCheck } from "../src/model/run-model-check.js";
import { ISSUE_13 } from "./planted/issue-13.js";
import { ISSUE_25 } from "./planted/issue-25.js";
import { TRACE_OWNERS } from "./planted/trace-owners.js";

const PLANTED = { ...ISSUE_13, ...ISSUE_25, ...TRACE_OWNERS };

const byId = (id: string): ContractCase => {
  const found = CONTRACT_CASES.find((c) => c.id === id);
  if (!found) throw new Error(`no contract case ${id}`);
  return found;
};

/**
 * The conformance suite's self-test: each violation of issues #13 and #25, planted in core's
 * reference driver as a third-party driver could have it, must fail the case written for it,
 * with a message naming the rule and what differs.
 */
const opened: MessageStore[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

async function failureOf(c: ContractCase, open: () => Promise<MessageStore>): Promise<string> {
  const store = await open();
  opened.push(store);
  const openAnother = async () => store;
  try {
    await c.run({ store, openAnother, restart: null, inspect: null });
  } catch (error) {
    return (error as Error).message;
  }
  return expect.fail(`case "${c.title}" passed against the planted bug`);
}

const CASES: [keyof typeof PLANTED, string, RegExp][] = [
  // Issue #13
  [
    "flagByUpsertIgnored",
    "flag-by-upsert",
    /getImmediateContext\(c, 10\) ids.*length 4, expected 3/,
  ],
  ["staleEmbeddingIndex", "embedding-removed-by-upsert", /searchMessages ids after the upserts/],
  [
    "staleUserIndex",
    "user-changed-by-upsert",
    /searchMessages\(\{ userId: "uu-old" \}\) ids after re-creation/,
  ],
  [
    "usageIgnoresUser",
    "usage-agent-and-user",
    /summarizeUsage\(\{ agentId: "ua-A", userId: "ua-X" \}\)\[0\]\["turns"\]: got 2, expected 1/,
  ],
  [
    "usageIgnoresAgent",
    "usage-agent-and-user",
    /summarizeUsage\(\{ agentId: "ua-A", userId: "ua-X" \}\)\[0\]\["turns"\]: got 2, expected 1/,
  ],
  [
    "chunkedListReads",
    "atomic-list-pages",
    /getMessagesByConversationId\(al-conv\): \d+ items, batches seen in part: batch \d+ 5\/10/,
  ],
  ["cascadeInSteps", "atomic-cascade", /saw part of the messages|saw gone/],
  ["batchInSteps", "atomic-batch", /a read saw part of the batch: messages=\d+\/200/],
  // Issue #25
  ["pageFromTwoReads", "atomic-list-pages-mutations", /getMessagesByConversationId\(am-conv\)/],
  [
    "purgeInclusive",
    "purge-before-exclusive",
    /purgeDeleted\(\{ before: AT \}\).*\["conversations"\]: got 1, expected 0/,
  ],
  [
    "traceBatchOneByOne",
    "trace-batch-stops-at-refusal",
    /traces stored with atomicTraceBatches: length 2, expected 0/,
  ],
  [
    "pendingIgnoresTenant",
    "pending-embeddings-tenant",
    /listPendingEmbeddings\(\{ tenantId: "t1" \}\) ids \(pages of 1\): length 3, expected 1/,
  ],
  [
    "activityFromNewMessagesOnly",
    "activity-forward-by-upsert",
    /lastActivityAt|got \d+, expected \d+/,
  ],
  [
    "stampNotBumped",
    "soft-delete-stamp-bumped",
    /deletedAt is \d+, not after the newest stamp in it/,
  ],
  ["sessionReadThenWrite", "session-race", /round \d+/],
  ["sessionReadThenWrite", "session-retry", /timestamp/],
  ["viewReadsTwice", "view-reads-arguments-once", /alice's records after forUser\("mallory"\)/],
  [
    "ownersOnlyWithTenants",
    "owners-hold-everywhere",
    /storeMessage\(bob's message in oh-a\) rejects with: got "resolved", expected "INTEGRITY"/,
  ],
  // Trace writes through a view
  [
    "foreignMessageNamed",
    "view-trace-foreign-message",
    /forUser\("alice"\)\.storeTurnTrace naming bob's message rejects with: got "INTEGRITY", expected "NOT_FOUND"/,
  ],
  [
    "oneTracePerMessageFirst",
    "trace-owner-first",
    /forUser\("bob"\)\.storeTurnTraces\(\[of-bob-t1 on of-bob-m1, of-alice-t on of-bob-m1\]\) rejects with: got "INTEGRITY", expected "NOT_FOUND"/,
  ],
];

describe("self-test: planted bugs fail their case, naming the rule and the field", () => {
  for (const [bug, id, detail] of CASES) {
    const c = byId(id);
    it(`${bug} fails [${id}] "${c.title}"`, async () => {
      const message = await failureOf(c, PLANTED[bug]);
      expect(message).toContain(`[rule] ${c.rule}`);
      expect(message).toMatch(detail);
      expect(message).not.toMatch(/…\(\d+\)/); // never vitest's truncated object rendering
    });
  }

  it("every case passes against the unplanted reference driver", async () => {
    for (const c of new Set(CASES.map(([, id]) => byId(id)))) {
      const store = new MessageStore(new MemoryDriver());
      opened.push(store);
      await c.run({ store, openAnother: async () => store, restart: null, inspect: null });
    }
  });

  it("the model-based check finds ties ordered by id, and prints a shrunk sequence of a handful of operations", async () => {
    let store: MessageStore | null = null;
    const fresh = async () => {
      await store?.close();
      store = await PLANTED.tiesById();
      return { store, reopen: null };
    };
    let message = "";
    try {
      await runModelCheck(fresh, { numRuns: 200, seed: 13 });
    } catch (error) {
      message = (error as Error).message;
    } finally {
      await (store as MessageStore | null)?.close();
    }
    expect(message, "the planted ordering bug was not found").toContain("Counterexample:");
    const sequence = message.slice(message.indexOf("Counterexample:")).split("\n[rule]")[0]!;
    const operations = sequence.match(/await store/g) ?? [];
    expect(operations.length).toBeGreaterThanOrEqual(2);
    expect(operations.length, sequence).toBeLessThanOrEqual(6);
    expect(message).toContain("[rule] every result equals the reference driver's");
    console.info(`model-based self-test, shrunk counterexample:\n${sequence}`);
  });
});
