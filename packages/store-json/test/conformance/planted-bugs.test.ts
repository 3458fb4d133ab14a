import { CONTRACT_CASES, type ContractCase, runModelCheck } from "@message-store/conformance";
import { MessageStore } from "@message-store/core";
import { afterEach, describe, expect, it } from "vitest";
import { PLANTED } from "./planted-bugs.js";

const byId = (id: string): ContractCase => {
  const found = CONTRACT_CASES.find((c) => c.id === id);
  if (!found) throw new Error(`no contract case ${id}`);
  return found;
};
const flagByUpsert = byId("flag-by-upsert");
const embeddingRemovedByUpsert = byId("embedding-removed-by-upsert");
const userChangedByUpsert = byId("user-changed-by-upsert");
const usageAgentAndUser = byId("usage-agent-and-user");
const atomicListPages = byId("atomic-list-pages");
const atomicCascade = byId("atomic-cascade");
const atomicBatch = byId("atomic-batch");

/**
 * The conformance suite's self-test: each violation of issue #13, planted in the JSON adapter, must fail
 * the case written for it, with a message naming the rule and what differs.
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

const CASES: [keyof typeof PLANTED, ContractCase, RegExp][] = [
  ["flagByUpsertIgnored", flagByUpsert, /getImmediateContext\(c, 10\) ids.*length 4, expected 3/],
  ["staleEmbeddingIndex", embeddingRemovedByUpsert, /searchMessages ids after the upserts/],
  [
    "staleUserIndex",
    userChangedByUpsert,
    /searchMessages\(\{ userId: "uu-old" \}\) ids after re-creation/,
  ],
  [
    "usageIgnoresUser",
    usageAgentAndUser,
    /summarizeUsage\(\{ agentId: "ua-A", userId: "ua-X" \}\)\[0\]\["turns"\]: got 2, expected 1/,
  ],
  [
    "usageIgnoresAgent",
    usageAgentAndUser,
    /summarizeUsage\(\{ agentId: "ua-A", userId: "ua-X" \}\)\[0\]\["turns"\]: got 2, expected 1/,
  ],
  [
    "chunkedListReads",
    atomicListPages,
    /getMessagesByConversationId\(al-conv\): \d+ items, batches seen in part: batch \d+ 5\/10/,
  ],
  ["cascadeInSteps", atomicCascade, /saw part of the messages|saw gone/],
  ["batchInSteps", atomicBatch, /a read saw part of the batch: messages=\d+\/200/],
];

describe("self-test: planted bugs fail their case, naming the rule and the field", () => {
  for (const [bug, c, detail] of CASES) {
    it(`${bug} fails "${c.title}"`, async () => {
      const message = await failureOf(c, PLANTED[bug]);
      expect(message).toContain(`[rule] ${c.rule}`);
      expect(message).toMatch(detail);
      expect(message).not.toMatch(/…\(\d+\)/); // never vitest's truncated object rendering
    });
  }

  it("every case passes against the unpatched JSON adapter", async () => {
    for (const [, c] of CASES) {
      const store = await MessageStore.initialize({ storage: "json", path: ":memory:" });
      opened.push(store);
      await c.run({ store, openAnother: null, restart: null, inspect: null });
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
    const operations = sequence.match(/^ {2}(await store|store = )/gm) ?? [];
    expect(operations.length).toBeGreaterThanOrEqual(2);
    expect(operations.length, sequence).toBeLessThanOrEqual(5);
    expect(message).toContain("[rule] every result equals the reference driver's");
    console.info(`model-based self-test, shrunk counterexample:\n${sequence}`);
  });
});
