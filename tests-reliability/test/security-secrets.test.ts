import { isMessageStoreError, MessageStore } from "@message-store/core";
import { MongoMessageStore } from "@message-store/mongodb";
import { PostgresMessageStore } from "@message-store/postgres";
import {
  createTestDatabase,
  findFreePort,
  type PostgresServer,
  startEmbeddedPostgres,
} from "@message-store/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conversation, message } from "./support/messages.js";
import { captureOutput, everythingIn } from "./support/secret-scan.js";

const SECRET = "S3cr3t-P4ss";
/** Percent-encoded in the DSN; a driver could log it decoded. */
const ENCODED = "S3cr3t%2FP4ss";
const DECODED = "S3cr3t/P4ss";
const BOUND_MS = 10_000;

let closedPort: number;
let server: PostgresServer;

beforeAll(async () => {
  closedPort = await findFreePort(); // nothing listens there
  server = await startEmbeddedPostgres();
});
afterAll(async () => {
  await server?.stop();
});

/** Runs `open` (which must reject), capturing all output; checks the error and that no secret leaked. */
async function expectNoLeak(
  label: string,
  open: () => Promise<unknown>,
  codes: string[],
): Promise<void> {
  const capture = captureOutput();
  const started = Date.now();
  let error: unknown;
  try {
    await open().then(
      async (store) => {
        await (store as MessageStore).close?.();
        error = new Error("resolved");
      },
      (e: unknown) => {
        error = e;
      },
    );
    await new Promise((r) => setImmediate(r)); // let process warnings be emitted
  } finally {
    capture.restore();
  }
  const elapsed = Date.now() - started;
  expect(isMessageStoreError(error) && error.code, `${label}: ${String(error)}`).toBeOneOf(codes);
  expect(elapsed, `${label}: took ${elapsed} ms`).toBeLessThan(BOUND_MS);
  const exposed = `${everythingIn(error)}\n${capture.text()}`;
  for (const secret of [SECRET, ENCODED, DECODED]) {
    expect(
      exposed.includes(secret),
      `${label}: "${secret}" leaked:\n${exposed.slice(0, 3000)}`,
    ).toBe(false);
  }
}

describe("security: no password in errors or logs", () => {
  it("postgres: a DSN with a password pointing at a closed port", async () => {
    const dsn = `postgres://app:${SECRET}@127.0.0.1:${closedPort}/db`;
    const config = { storage: "postgres", dsn, connect_timeout_ms: 2_000 } as const;
    await expectNoLeak("factory", () => MessageStore.initialize(config), ["CONNECTION"]);
    await expectNoLeak("XMessageStore.open", () => PostgresMessageStore.open(config), [
      "CONNECTION",
    ]);
    const encoded = { ...config, dsn: `postgres://app:${ENCODED}@127.0.0.1:${closedPort}/db` };
    await expectNoLeak("percent-encoded password", () => MessageStore.initialize(encoded), [
      "CONNECTION",
    ]);
  });

  it("postgres: bad DSN syntax and bad config keys", async () => {
    const bad = [
      `postgres://app:${SECRET}@127.0.0.1:99999999/db`,
      `postgres://app:${SECRET}@[::1/db`,
      `postgres://app:${SECRET}@127.0.0.1:${closedPort}/db?sslmode=nonsense`,
      `postgres://app:${SECRET}@/db?host=%zz`,
    ];
    for (const dsn of bad) {
      await expectNoLeak(
        `dsn ${dsn.replace(SECRET, "***")}`,
        () => MessageStore.initialize({ storage: "postgres", dsn, connect_timeout_ms: 2_000 }),
        ["CONFIGURATION", "CONNECTION"],
      );
    }
    const dsn = `postgres://app:${SECRET}@127.0.0.1:${closedPort}/db`;
    await expectNoLeak(
      "invalid pool_max",
      () => MessageStore.initialize({ storage: "postgres", dsn, pool_max: 0 }),
      ["CONFIGURATION"],
    );
    await expectNoLeak(
      "unknown key",
      () => MessageStore.initialize({ storage: "postgres", dsn, password: SECRET } as never),
      ["CONFIGURATION"],
    );
  });

  it("postgres: a live server with a password in the DSN, then lost mid-use", async () => {
    // The embedded server trusts every local connection, so any password is accepted.
    const base = new URL(await createTestDatabase(server.url, "secrets"));
    base.password = SECRET;
    const missingDb = new URL(base);
    missingDb.pathname = "/no_such_database";
    await expectNoLeak(
      "no such database",
      () => MessageStore.initialize({ storage: "postgres", dsn: missingDb.toString() }),
      ["CONFIGURATION"],
    );
    const store = await MessageStore.initialize({
      storage: "postgres",
      dsn: base.toString(),
      connect_timeout_ms: 2_000,
    });
    try {
      await store.storeConversation(conversation("s-c1"));
      await server.kill();
      await expectNoLeak(
        "write after the kill",
        () => store.storeMessage(message("s-m1", "s-c1", 1)),
        ["CONNECTION", "OUTCOME_UNKNOWN"],
      );
      await expectNoLeak("read after the kill", () => store.getConversation("s-c1"), [
        "CONNECTION",
      ]);
      await expectNoLeak("list after the kill", () => store.getMessagesByConversationId("s-c1"), [
        "CONNECTION",
      ]);
    } finally {
      await server.start();
      await store.close();
    }
  });

  it("mongodb: a URI with a password pointing at a closed port", async () => {
    const uri = `mongodb://app:${SECRET}@127.0.0.1:${closedPort}/db`;
    const config = {
      storage: "mongodb",
      uri,
      db: "db",
      server_selection_timeout_ms: 2_000,
    } as const;
    await expectNoLeak("factory", () => MessageStore.initialize(config), ["CONNECTION"]);
    await expectNoLeak("XMessageStore.open", () => MongoMessageStore.open(config), ["CONNECTION"]);
    const encoded = { ...config, uri: `mongodb://app:${ENCODED}@127.0.0.1:${closedPort}/db` };
    await expectNoLeak("percent-encoded password", () => MessageStore.initialize(encoded), [
      "CONNECTION",
    ]);
  });

  it("mongodb: bad URI syntax", async () => {
    const bad = [
      `mongodb://app:${SECRET}@127.0.0.1:99999/db`,
      `mongodb://app:${SECRET}@127.0.0.1:${closedPort}/db?authMechanism=NOPE`,
      `mongodb://app:${SECRET}@127.0.0.1:${closedPort}/db?notAnOption=1`,
      `mongodb://app:${SECRET}@`,
      `mongo://app:${SECRET}@127.0.0.1:${closedPort}/db`,
    ];
    for (const uri of bad) {
      await expectNoLeak(
        `uri ${uri.replace(SECRET, "***")}`,
        () =>
          MessageStore.initialize({
            storage: "mongodb",
            uri,
            db: "db",
            server_selection_timeout_ms: 2_000,
          }),
        ["CONFIGURATION", "CONNECTION"],
      );
    }
  });
});

describe("security: the leak detector itself", () => {
  it("finds a planted secret in a cause, an AggregateError member, a property, the console, stderr and warnings", async () => {
    const nested = new Error("outer", {
      cause: new Error("middle", { cause: new Error(`dsn ${SECRET}`) }),
    });
    const aggregate = new Error("wrapper", {
      cause: new AggregateError([new Error(`x ${SECRET}`)]),
    });
    const property = Object.assign(new Error("plain"), { config: { connectionString: SECRET } });
    for (const e of [nested, aggregate, property]) expect(everythingIn(e)).toContain(SECRET);
    for (const leak of [
      () => console.error(new Error(SECRET)),
      () => process.stderr.write(`${SECRET}\n`),
      () => process.emitWarning(`warning ${SECRET}`),
    ]) {
      const capture = captureOutput();
      try {
        leak();
        await new Promise((r) => setImmediate(r));
      } finally {
        capture.restore();
      }
      expect(capture.text()).toContain(SECRET);
    }
  });
});
