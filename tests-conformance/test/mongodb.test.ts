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

describeMessageStoreConformance({
  name: "mongodb",
  open: () => MessageStore.initialize({ storage: "mongodb", uri, db }),
  reset: clear,
});
