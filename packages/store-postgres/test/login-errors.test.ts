import { inspect } from "node:util";
import { ConfigurationError, MessageStore } from "@message-store/core";
import {
  builtInServersSupported,
  createTestDatabase,
  type PostgresServer,
  startEmbeddedPostgres,
} from "@message-store/test-servers";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { PostgresMessageStore } from "../src/index.js";
import { conversation, withClient } from "./helpers.js";

const PASSWORD = "Right-Pw-41";
const WRONG = "Wr0ng-Pw-17";

async function openError(dsn: string): Promise<Error> {
  return PostgresMessageStore.open({ dsn, pool_min: 0, connect_timeout_ms: 5_000 }).then(
    async (store) => {
      await store.close();
      return new Error("opened");
    },
    (e: Error) => e,
  );
}

function expectConfigurationError(error: Error, pattern: RegExp): void {
  expect(error, String(error)).toBeInstanceOf(ConfigurationError);
  expect((error as ConfigurationError).code).toBe("CONFIGURATION");
  expect(error.message).toMatch(/^\[message-store\] \[postgres\] connected, but /);
  expect(error.message).toMatch(pattern);
  const everything = `${inspect(error, { depth: 10 })}\n${error.stack}`;
  for (const secret of [PASSWORD, WRONG]) expect(everything).not.toContain(secret);
}

describe("a login the server refuses is a ConfigurationError (trust-auth server)", () => {
  let base: URL;
  beforeAll(async () => {
    base = new URL(await createTestDatabase(inject("postgresUrl"), "ms_pg_login"));
  });

  it("a database that does not exist (3D000)", async () => {
    const url = new URL(base);
    url.pathname = "/no_such_database";
    expectConfigurationError(
      await openError(url.toString()),
      /database "no_such_database" does not exist \(3D000\); check the DSN's database name/,
    );
  });

  it("a role that does not exist (28000)", async () => {
    const url = new URL(base);
    url.username = "no_such_role";
    expectConfigurationError(
      await openError(url.toString()),
      /role "no_such_role" does not exist \(28000\)/,
    );
  });

  it("sslmode=require against a server without SSL", async () => {
    const ssl = (await withClient(base.toString(), (c) => c.query("SHOW ssl"))).rows[0].ssl;
    if (ssl === "on") return; // an external server with SSL: nothing to prove here
    const url = new URL(base);
    url.searchParams.set("sslmode", "require");
    // libpq's meaning of require; without it pg 8 reads require as verify-full and prints a
    // SECURITY WARNING block into the test log (both fail alike against a server without SSL).
    url.searchParams.set("uselibpqcompat", "true");
    expectConfigurationError(
      await openError(url.toString()),
      /the server does not support SSL, which the DSN's sslmode requires/,
    );
  });
});

describe.runIf(builtInServersSupported())(
  "a login the server refuses is a ConfigurationError (password-auth, SSL server)",
  () => {
    let server: PostgresServer;
    let url: (user: string, password: string | null, params?: Record<string, string>) => string;

    beforeAll(async () => {
      server = await startEmbeddedPostgres({ passwordAuth: true, ssl: true });
      const db = new URL(await createTestDatabase(server.url, "ms_pg_auth"));
      await withClient(db.toString(), async (c) => {
        await c.query(`CREATE ROLE app LOGIN PASSWORD '${PASSWORD}'`);
        await c.query(`ALTER DATABASE ${db.pathname.slice(1)} OWNER TO app`);
        await c.query("ALTER SCHEMA public OWNER TO app");
      });
      url = (user, password, params = {}) => {
        const u = new URL(db);
        u.username = user;
        u.password = password ?? "";
        for (const [k, v] of Object.entries({ sslmode: "disable", ...params })) {
          u.searchParams.set(k, v);
        }
        return u.toString();
      };
    });
    afterAll(async () => {
      await server?.stop();
    });

    it("the right password opens the store, also over SSL", async () => {
      for (const params of [{}, { sslmode: "require", uselibpqcompat: "true" }] as Record<
        string,
        string
      >[]) {
        const store = await PostgresMessageStore.open({ dsn: url("app", PASSWORD, params) });
        await store.storeConversation(conversation("ok"));
        await store.close();
      }
    });

    it("a wrong password (28P01), through open() and through the factory", async () => {
      const pattern =
        /password authentication failed for user "app" \(28P01\); check the DSN's user and password/;
      expectConfigurationError(await openError(url("app", WRONG)), pattern);
      const viaFactory = await MessageStore.initialize({
        storage: "postgres",
        dsn: url("app", WRONG),
      }).catch((e: Error) => e);
      expectConfigurationError(viaFactory as Error, pattern);
    });

    it("a role that does not exist, behind password auth (28P01: the server does not say which)", async () => {
      expectConfigurationError(
        await openError(url("ghost", WRONG)),
        /password authentication failed for user "ghost" \(28P01\)/,
      );
    });

    it("no password in the DSN when the server asks for one", async () => {
      expectConfigurationError(
        await openError(url("app", null)),
        /the server asks for a password and the DSN gives none/,
      );
    });

    it("a server certificate the client refuses (sslmode=verify-full, self-signed)", async () => {
      expectConfigurationError(
        await openError(url("app", PASSWORD, { sslmode: "verify-full" })),
        /the server's TLS certificate was refused \(DEPTH_ZERO_SELF_SIGNED_CERT\)/,
      );
    });

    it("a password changed while the store runs: the next new connection fails with ConfigurationError, not ConnectionError", async () => {
      const store = await PostgresMessageStore.open({ dsn: url("app", PASSWORD), pool_min: 0 });
      try {
        await store.storeConversation(conversation("before"));
        await withClient(server.url, async (c) => {
          await c.query(`ALTER ROLE app PASSWORD '${WRONG}'`);
          await c.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'app'",
          );
        });
        // The pool drops its idle connection once the termination notice arrives; until then
        // a call could still be sent on it (and fail as a lost connection, not a login).
        await vi.waitFor(() => expect(store.driver.pool.idleCount).toBe(0), { timeout: 5_000 });
        const error = await store.getConversation("before").catch((e: Error) => e);
        expectConfigurationError(error as Error, /password authentication failed for user "app"/);
      } finally {
        await store.close();
        await withClient(server.url, (c) => c.query(`ALTER ROLE app PASSWORD '${PASSWORD}'`));
      }
    });
  },
);
