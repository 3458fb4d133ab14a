import { describeMessageStoreConformance } from "@message-store/conformance";
import { MessageStore } from "@message-store/core";
import { MongoClient } from "mongodb";
import { inject } from "vitest";
import "../src/index.js";
import { serverUri, uniqueDbName } from "./helpers.js";

// jongodb's replica-set transactions do not detect write conflicts and can lose concurrent
// commits, which the concurrency cases would catch as lost writes; its standalone profile is
// faithful. So the suite runs on the standalone jongodb, or on MESSAGE_STORE_MONGODB_URL (a real
// server, with transactions when it is a replica set).
const external = inject("externalMongo");
const uri = serverUri(!external);
const db = uniqueDbName("conformance");

async function withDb<T>(work: (client: MongoClient) => Promise<T>): Promise<T> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 });
  try {
    await client.connect();
    return await work(client);
  } finally {
    await client.close();
  }
}

const COLLECTIONS = [
  "conversations",
  "messages",
  "turn_traces",
  "checkpoints",
  "checkpoint_values",
  "checkpoint_writes",
] as const;

describeMessageStoreConformance({
  name: external ? "mongodb" : "mongodb (standalone jongodb)",
  open: () => MessageStore.initialize({ storage: "mongodb", uri, db }),
  // jongodb has no dropDatabase, so deleteMany.
  reset: () =>
    withDb(async (client) => {
      for (const name of COLLECTIONS) await client.db(db).collection(name).deleteMany({});
    }),
  inspect: () =>
    withDb(async (client) => {
      const count = (name: string) => client.db(db).collection(name).countDocuments({});
      return {
        conversations: await count("conversations"),
        messages: await count("messages"),
        turnTraces: await count("turn_traces"),
      };
    }),
  // Without transactions the adapter writes a batch and a cascade as several commands, as its
  // README documents ("Without transactions (standalone server)").
  ...(external
    ? {}
    : {
        knownViolations: {
          "atomic-batch":
            "standalone MongoDB has no multi-document transactions: a batch lands document by document",
          "atomic-list-pages":
            "standalone MongoDB has no multi-document transactions: a batch lands document by document",
          "atomic-list-pages-mutations":
            "standalone MongoDB has no multi-document transactions: a batch flagging every message, a soft delete and a cascade land document by document",
          "atomic-cascade":
            "standalone MongoDB has no multi-document transactions: traces, messages, then the conversation go in three commands",
        },
      }),
});
