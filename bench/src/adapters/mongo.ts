import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ConversationRecord, Message, TurnTrace } from "@message-store/core";
import { MongoMessageStore } from "@message-store/mongodb";
import { jongodbBinaryPath } from "@message-store/test-servers";
import { type Db, MongoClient } from "mongodb";
import {
  PER_CONVERSATION,
  syntheticConversation,
  syntheticMessage,
  syntheticTrace,
  traceMessageIndex,
} from "./synthetic.js";
import type { BenchTarget, BulkLoader, RawStore } from "./types.js";

/*
 * Documents in the adapter's own shape (see store-mongo's documents.ts): `_id = id`, messages with
 * `sequence`, conversations and traces with `idKey` (equal to the id for the ASCII ids used
 * here), conversations with `lastMessageAt`, `lastActivityAt` and `lastSequence`. So the store
 * reads what the raw path writes, through the same indexes.
 */

function conversationDoc(c: ConversationRecord, lastMessageAt: number | null, lastSequence = 0) {
  const { id, ...rest } = c;
  return {
    _id: id,
    idKey: id,
    ...rest,
    lastMessageAt,
    lastActivityAt: Math.max(c.updatedAt, lastMessageAt ?? c.updatedAt),
    lastSequence,
  };
}

function messageDoc(m: Message, sequence: number) {
  const { id, ...rest } = m;
  return { _id: id, ...rest, sequence };
}

function traceDoc(t: TurnTrace) {
  const { id, ...rest } = t;
  return { _id: id, idKey: id, ...rest };
}

/** Plain driver calls, on a client of its own, against the store's collections. */
function rawStore(db: Db): RawStore {
  const conversations = db.collection<any>("conversations");
  const messages = db.collection<any>("messages");
  const traces = db.collection<any>("turn_traces");
  let sequence = 1_000_000_000;
  return {
    async storeConversation(c) {
      await conversations.insertOne(conversationDoc(c, null));
    },
    async storeMessages(batch) {
      if (batch.length === 1) await messages.insertOne(messageDoc(batch[0]!, sequence++));
      else await messages.insertMany(batch.map((m) => messageDoc(m, sequence++)));
    },
    async immediateContext(conversationId, n) {
      const docs = await messages
        .find(
          { conversationId, isFlagged: false },
          { sort: { timestamp: -1, sequence: -1 }, limit: n, batchSize: n },
        )
        .toArray();
      return docs.reverse();
    },
    async storeTrace(t) {
      await traces.insertOne(traceDoc(t));
    },
    async tracesByAgent(agentId, since, until) {
      return traces
        .find(
          { agentId, timestamp: { $gte: since, $lt: until } },
          { sort: { timestamp: -1, idKey: -1 }, batchSize: 1_000_000 },
        )
        .toArray();
    },
    async deleteConversation(id) {
      await traces.deleteMany({ conversationId: id });
      await messages.deleteMany({ conversationId: id });
      await conversations.deleteOne({ _id: id });
    },
  };
}

function loader(db: Db, counts: { messages: number; traces: number }): BulkLoader {
  // Large calls: jongodb's cost per call grows with the collection, so fewer calls load faster
  // (the driver still splits each into batches the server accepts).
  const chunk = 50_000;
  return {
    method: "insertMany of documents in the adapter's shape, up to 50,000 per call (raw client)",
    async grow(target) {
      for (let from = counts.messages; from < target.messages; from += chunk) {
        const to = Math.min(target.messages, from + chunk);
        const convs = [];
        for (
          let c = Math.ceil(from / PER_CONVERSATION);
          c < Math.ceil(to / PER_CONVERSATION);
          c++
        ) {
          const last = syntheticMessage((c + 1) * PER_CONVERSATION - 1).timestamp;
          convs.push(conversationDoc(syntheticConversation(c), last, PER_CONVERSATION));
        }
        if (convs.length > 0) await db.collection<any>("conversations").insertMany(convs);
        const docs = [];
        for (let g = from; g < to; g++) docs.push(messageDoc(syntheticMessage(g), g));
        await db.collection<any>("messages").insertMany(docs, { ordered: false });
        counts.messages = to;
      }
      for (let from = counts.traces; from < target.traces; from += chunk) {
        const to = Math.min(target.traces, from + chunk);
        const docs = [];
        for (let k = from; k < to; k++) docs.push(traceDoc(syntheticTrace(traceMessageIndex(k))));
        await db.collection<any>("turn_traces").insertMany(docs, { ordered: false });
        counts.traces = to;
      }
    },
  };
}

function jongodbVersion(): string {
  try {
    const bin = jongodbBinaryPath();
    const pkg = JSON.parse(readFileSync(join(dirname(dirname(bin)), "package.json"), "utf8"));
    return `jongodb ${pkg.version}`;
  } catch {
    return "jongodb";
  }
}

/** Measured on this machine with plain driver calls (see BENCHMARKS.md, Findings). */
const JONGODB_CONSTRAINT =
  "jongodb (an in-memory test server) makes every single-document write cost more the larger the collection is (insertOne ≈ 8 ms at 1k documents, 60 ms at 3k, 0.9 s at 10k; loading 50k documents takes about a minute), so the Mongo write scenarios run at small sizes and the big store is 50,000 messages. Set MESSAGE_STORE_MONGODB_URL to a real MongoDB for the issue's sizes.";

/** Options of {@link openMongo}. */
export interface MongoBenchOptions {
  uri: string;
  /** True when the URI is jongodb started by the harness. */
  jongodb: boolean;
}

/** The Mongo target: a fresh database, the store (own client) and a raw client. */
export async function openMongo(options: MongoBenchOptions): Promise<BenchTarget> {
  const dbName = `bench_${Date.now().toString(36)}`;
  const rawClient = new MongoClient(options.uri);
  await rawClient.connect();
  const db = rawClient.db(dbName);
  const store: MongoMessageStore = await MongoMessageStore.open({
    storage: "mongodb",
    uri: options.uri,
    db: dbName,
  });
  const info = await db.admin().command({ buildInfo: 1 });
  const hello = await db.command({ hello: 1 });
  const counts = { messages: 0, traces: 0 };
  const raw = rawStore(db);
  const origin = options.jongodb ? jongodbVersion() : "external server";
  return {
    name: "mongo",
    constraint: options.jongodb ? JONGODB_CONSTRAINT : undefined,
    server: `MongoDB wire protocol, server version ${info.version} (${origin}${hello.setName ? `, replica set ${hello.setName}` : ""}; transactions ${store.driver.usesTransactions ? "on" : "off"})`,
    store,
    raw,
    loader: loader(db, counts),
    async seed(_side, conversation, messages, traces) {
      const last = messages.reduce((a, m) => Math.max(a, m.timestamp), 0);
      await db
        .collection<any>("conversations")
        .insertOne(conversationDoc(conversation, last, messages.length));
      for (let i = 0; i < messages.length; i += 5000) {
        await db
          .collection<any>("messages")
          .insertMany(messages.slice(i, i + 5000).map((m, k) => messageDoc(m, i + k + 1)));
      }
      for (let i = 0; i < traces.length; i += 5000) {
        await db.collection<any>("turn_traces").insertMany(traces.slice(i, i + 5000).map(traceDoc));
      }
    },
    async openCounted() {
      let log: string[] = [];
      const client = new MongoClient(options.uri, { monitorCommands: true });
      client.on("commandStarted", (e) => log.push(e.commandName));
      await client.connect();
      const name = `${dbName}_rt`;
      const counted = await MongoMessageStore.open({ storage: "mongodb", client, db: name });
      return {
        store: counted,
        async roundTrips(call) {
          log = [];
          await call();
          return log;
        },
        async close() {
          await counted.close();
          for (const c of ["turn_traces", "messages", "conversations"]) {
            await client
              .db(name)
              .collection(c)
              .deleteMany({})
              .catch(() => {});
          }
          await client.close();
        },
      };
    },
    async reset() {
      // jongodb has no dropDatabase: empty the collections, keeping their indexes.
      for (const name of ["turn_traces", "messages", "conversations"]) {
        await db.collection(name).deleteMany({});
      }
      counts.messages = 0;
      counts.traces = 0;
    },
    async close() {
      await store.close();
      await rawClient.close();
    },
  };
}
