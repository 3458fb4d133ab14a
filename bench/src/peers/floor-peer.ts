import type { Message } from "@message-store/core";
import type pg from "pg";
import { INSERT_MESSAGE, messageValues } from "../adapters/postgres.js";
import type { RawStore } from "../adapters/types.js";
import { makeConversation } from "../data.js";
import type { PeerSystem } from "./peer-system.js";

/**
 * Our own tables at the cost of the table alone: hand-written SQL on the raw pool with none of the
 * store's rules, locks or conversation activity, and no mapping or checking of what comes back.
 * It is the floor any write path keeping our schema (its columns, indexes and foreign key) can
 * reach, so the "vs peers" rows show how much of a gap is the schema and how much the store.
 * Append: one plain `INSERT … VALUES` (a named prepared statement); batch: one `INSERT … SELECT`
 * from the batch's JSON (the raw minimum of the ingest scenario); read: the adapter's own
 * context statement, prepared.
 */
export function ourTableFloor(pool: pg.Pool, raw: RawStore): PeerSystem<Message> {
  return {
    name: "our table, plain SQL",
    writes:
      "our 23 written columns into our table (its indexes and foreign key), one plain INSERT per message, no lock, rule or activity update, no `seq` order guarantee for concurrent writers",
    convert: (m) => m,
    async createConversation(id, userId) {
      await raw.storeConversation(makeConversation(id, userId, "agent-peers"));
    },
    async storeBatch(records) {
      await raw.storeMessages(records);
    },
    async append(record) {
      await pool.query({
        name: "bench_floor_append",
        text: INSERT_MESSAGE,
        values: messageValues(record),
      });
    },
    async lastN(conversationId, n) {
      const read = raw.immediateContextPrepared ?? raw.immediateContext;
      return read(conversationId, n);
    },
    load: (records) => raw.storeMessages(records),
    async close() {},
  };
}
