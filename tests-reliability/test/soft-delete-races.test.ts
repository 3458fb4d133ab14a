import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { MessageStore, type MessageStoreApi } from "@message-store/core";
import {
  createTestDatabase,
  MONGODB_URL_ENV,
  mongoForTests,
  postgresForTests,
  startJongodb,
} from "@message-store/test-servers";
import { afterAll, beforeAll, describe, it } from "vitest";
import { jongodbUri, uniqueDbName } from "./support/mongo.js";
import {
  expectHeld,
  LIVE_WRITES,
  raceLiveWrite,
  raceMessageDelete,
} from "./support/soft-delete-races.js";
import { tempDir } from "./support/temp-dir.js";

/*
 * Soft delete against concurrent writes (issue #29, items 3 and 4). Two store instances on one
 * database (two pools or clients, as two application processes would be; the JSON store takes
 * one process, so there both calls go through one instance) race, 40 rounds per case:
 *
 * - a live write (a message, a batch, a session turn, a message's restore) against the
 *   conversation's soft delete: no live message may be left in the soft-deleted conversation, and
 *   a write that succeeded comes back with the conversation's restore;
 * - a message's own soft delete against the conversation's: the message keeps a stamp of its own,
 *   so restoring the conversation leaves it deleted.
 *
 * These tests kill nothing, so a real server given by MESSAGE_STORE_POSTGRES_URL or
 * MESSAGE_STORE_MONGODB_URL is used when set. On jongodb's replica set only the writes whose
 * guarantee rests on single-document claims run: its transactions neither detect every write
 * conflict nor keep concurrent commits apart (8 writers × 50 transactional `$inc`s of one
 * document left it at 73 of 400), so no guarantee that rests on transactions can be observed
 * there; a real replica set runs every case.
 */
const ROUNDS = 40;

interface Backend {
  name: string;
  run: boolean;
  /** The live writes raced here, when not all of them. */
  writes?: readonly string[];
  open(): Promise<{ a: MessageStoreApi; b: MessageStoreApi; close(): Promise<void> }>;
}

const servers: { stop(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.allSettled(servers.splice(0).map((s) => s.stop()));
});

async function twoStores(config: Record<string, unknown>) {
  const a = await MessageStore.initialize(config as never);
  const b = await MessageStore.initialize(config as never);
  return { a, b, close: () => Promise.all([a.close(), b.close()]).then(() => {}) };
}

let pgUrl = "";
beforeAll(async () => {
  const pg = await postgresForTests();
  servers.push(pg);
  pgUrl = pg.url;
});

const BACKENDS: Backend[] = [
  {
    name: "postgres",
    run: true,
    open: async () =>
      twoStores({ storage: "postgres", dsn: await createTestDatabase(pgUrl, "sdrace") }),
  },
  {
    name: "postgres, partitioned",
    run: true,
    open: async () =>
      twoStores({
        storage: "postgres",
        dsn: await createTestDatabase(pgUrl, "sdrace_part"),
        partitions: 4,
      }),
  },
  {
    name: "mongodb standalone (jongodb)",
    run: true,
    open: async () => {
      const server = await startJongodb({ topology: "standalone" });
      servers.push(server);
      return twoStores({ storage: "mongodb", uri: jongodbUri(server.uri), db: uniqueDbName("sd") });
    },
  },
  {
    // Only the writes whose guarantee rests on single-document claims (the conversation's soft
    // delete, the write's confirmation): a session turn and a message's restore are transactions
    // there, and jongodb's do not keep concurrent commits apart (see above); a real replica set
    // runs them all.
    name: "mongodb replica set (jongodb)",
    run: !process.env[MONGODB_URL_ENV],
    writes: ["storeMessage", "storeMessages"],
    open: async () => {
      const server = await startJongodb({ topology: "replicaSet" });
      servers.push(server);
      return twoStores({ storage: "mongodb", uri: jongodbUri(server.uri), db: uniqueDbName("sd") });
    },
  },
  {
    name: "mongodb replica set (MESSAGE_STORE_MONGODB_URL)",
    run: Boolean(process.env[MONGODB_URL_ENV]),
    open: async () => {
      const mongo = await mongoForTests();
      servers.push(mongo);
      return twoStores({ storage: "mongodb", uri: mongo.uri, db: uniqueDbName("sd") });
    },
  },
  {
    name: "json",
    run: true,
    open: async () => {
      const dir = join(tempDir("sdrace"), "store");
      mkdirSync(dir);
      const a = await MessageStore.initialize({ storage: "json", path: join(dir, "s.json") });
      return { a, b: a, close: () => a.close() };
    },
  },
];

describe.each(BACKENDS)("soft-delete races: $name", ({ name, run, open, writes }) => {
  for (const kind of LIVE_WRITES) {
    it.runIf(run && (writes === undefined || writes.includes(kind)))(
      `${kind} racing softDeleteConversation (${ROUNDS} rounds): no live message in a soft-deleted conversation`,
      async () => {
        const { a, b, close } = await open();
        try {
          expectHeld(await raceLiveWrite(a, b, kind, "r", ROUNDS), `${name}, ${kind}`);
        } finally {
          await close();
        }
      },
    );
  }

  it.runIf(run)(
    `softDeleteMessage racing softDeleteConversation (${ROUNDS} rounds): a message deleted on its own stays deleted after the restore`,
    async () => {
      const { a, b, close } = await open();
      try {
        expectHeld(await raceMessageDelete(a, b, "r", ROUNDS), `${name}, own stamp`);
      } finally {
        await close();
      }
    },
  );
});
