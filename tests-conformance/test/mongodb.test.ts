import { MessageStore } from "@message-store/core";
import "@message-store/mongodb";
import { MongoClient } from "mongodb";
import { inject } from "vitest";
import { describeMessageStoreConformance } from "../src/index.js";

const uri = inject("mongoUri");
const db = inject("mongoDb");

/** Empties the adapter's collections (jongodb has no dropDatabase, so deleteMany). */
async function clear(): Promise<void> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 });
  try {
    await client.connect();
    for (const name of ["conversations", "messages", "turn_traces"]) {
      await client.db(db).collection(name).deleteMany({});
    }
  } finally {
    await client.close();
  }
}

/** Raw document counts behind the API, so the suite can see orphans a cascade left. */
async function inspect(): Promise<Record<string, number>> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 });
  try {
    await client.connect();
    const count = (name: string) => client.db(db).collection(name).countDocuments({});
    return {
      conversations: await count("conversations"),
      messages: await count("messages"),
      turnTraces: await count("turn_traces"),
    };
  } finally {
    await client.close();
  }
}

describeMessageStoreConformance({
  name: "mongodb",
  open: () => MessageStore.initialize({ storage: "mongodb", uri, db }),
  reset: clear,
  inspect,
  // This run uses a standalone server (see global-setup.ts): without transactions the adapter
  // writes a batch and a cascade as several commands, as its README documents.
  knownViolations: {
    "atomic-batch":
      "standalone MongoDB has no multi-document transactions: a batch lands document by document",
    "atomic-list-pages":
      "standalone MongoDB has no multi-document transactions: a batch lands document by document",
    "atomic-cascade":
      "standalone MongoDB has no multi-document transactions: traces, messages, then the conversation are deleted by three commands",
  },
});
