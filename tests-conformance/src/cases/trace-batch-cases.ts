import {
  isMessageStoreError,
  type MessageStoreApi,
  type TurnTraceInput,
} from "@message-store/core";
import { allTraces } from "../dump.js";
import { conversation, message, T0, trace } from "../fixtures.js";
import { assertRule, expectRule } from "../rule-check.js";
import type { ContractCase } from "./contract-case.js";

const BATCH_REFUSAL =
  "storeTurnTraces refused at one trace rejects with that trace's error and stores nothing after it; with capabilities.atomicTraceBatches it stores nothing at all";

const atomicBatches = (store: MessageStoreApi) => store.capabilities.atomicTraceBatches === true;

/**
 * A batch of six whose third trace names a missing message, and whose fifth names another one:
 * the error must be the third's (first in array order), the fourth to sixth never stored, and
 * with `atomicTraceBatches` the first two not either. Through the store and through a view.
 */
export const traceBatchStopsAtRefusal: ContractCase = {
  id: "trace-batch-stops-at-refusal",
  rule: BATCH_REFUSAL,
  title:
    "a trace batch refused at its k-th trace fails with the k-th trace's error, stores nothing after it, and nothing at all when atomicTraceBatches",
  async run({ store }) {
    const atomic = atomicBatches(store);
    const c = await store.storeConversation(conversation({ id: "tr-conv", userId: "tr-user" }));
    const ms = await store.storeMessages(
      Array.from({ length: 12 }, (_, i) =>
        message(c, {
          id: `tr-m${String(i).padStart(2, "0")}`,
          role: "assistant",
          timestamp: T0 + i,
        }),
      ),
    );
    const missing = (id: string) => ({ id, conversationId: c.id, userId: c.userId });
    const attempts: [string, MessageStoreApi, number][] = [
      ["store", store, 0],
      ['forUser("tr-user")', store.forUser("tr-user"), 6],
    ];
    for (const [who, api, from] of attempts) {
      const batch: TurnTraceInput[] = [
        trace(ms[from]!, { id: `tr-${from}-0` }),
        trace(ms[from + 1]!, { id: `tr-${from}-1` }),
        trace(missing(`tr-missing-first-${from}`), { id: `tr-${from}-2` }),
        trace(ms[from + 3]!, { id: `tr-${from}-3` }),
        trace(missing(`tr-missing-later-${from}`), { id: `tr-${from}-4` }),
        trace(ms[from + 5]!, { id: `tr-${from}-5` }),
      ];
      let error: unknown = null;
      try {
        await api.storeTurnTraces(batch);
      } catch (e) {
        error = e;
      }
      const code = isMessageStoreError(error) ? error.code : null;
      // A missing message is an owner refusal: "does not exist" through a view.
      const expected = api === store ? "INTEGRITY" : "NOT_FOUND";
      assertRule(
        BATCH_REFUSAL,
        code === expected,
        `${who}.storeTurnTraces: expected ${expected}, got ${error === null ? "no error" : String(error)}`,
      );
      const text = (error as Error).message;
      assertRule(
        BATCH_REFUSAL,
        text.includes(`tr-missing-first-${from}`) || text.includes(`tr-${from}-2`),
        `${who}.storeTurnTraces: the error names neither the third trace nor its message: ${text}`,
      );
      assertRule(
        BATCH_REFUSAL,
        !text.includes(`tr-missing-later-${from}`) && !text.includes(`tr-${from}-4`),
        `${who}.storeTurnTraces: the error is the fifth trace's, not the third's: ${text}`,
      );
      const stored = (await allTraces(store))
        .map((t) => t.id)
        .filter((id) => id.startsWith(`tr-${from}-`))
        .sort();
      const after = stored.filter((id) => Number(id.slice(-1)) > 2);
      expectRule(BATCH_REFUSAL, `${who}: traces stored after the refused one`, after, []);
      if (atomic) {
        expectRule(BATCH_REFUSAL, `${who}: traces stored with atomicTraceBatches`, stored, []);
      }
    }
  },
};
