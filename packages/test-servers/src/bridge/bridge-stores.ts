import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MessageStore } from "@message-store/core";
import { afterAll, afterEach, beforeAll, beforeEach, inject } from "vitest";
import type {} from "../bridge-setup.js";
import { createTestDatabase, dropTestDatabase } from "../test-databases.js";

/** The backends a framework bridge's tests run on. */
export type BridgeBackend = "json" | "postgres";

/** Every backend, in the order the bridges' suites run them. */
export const BRIDGE_BACKENDS: readonly BridgeBackend[] = ["json", "postgres"];

/** The store of the running test, as {@link useBridgeStore} keeps it. */
export interface BridgeStore {
  /** The store of the running test. */
  readonly store: MessageStore;
  /** The same store as the CLI's `--store` names it. */
  readonly spec: string;
}

/** What `MessageStore.initialize` opens for a backend, without naming adapter types here. */
function configOf(
  backend: BridgeBackend,
  location: string,
): Parameters<typeof MessageStore.initialize>[0] {
  const config =
    backend === "json"
      ? { storage: "json", path: location }
      : { storage: "postgres", dsn: location, pool_min: 0 };
  // The adapters are the bridge's dev dependencies, not this package's: core imports them by
  // name from the running package (see `MessageStore.initialize`), so their config types are
  // not visible here.
  return config as never;
}

/**
 * A store opened before each test and closed after it: a new JSON file in a temporary folder, or
 * the PostgreSQL database this test file creates once (tests use fresh conversation ids). The
 * PostgreSQL server comes from the global setup `@message-store/test-servers/bridge-setup`.
 */
export function useBridgeStore(backend: BridgeBackend): BridgeStore {
  let dir = "";
  let url = "";
  let files = 0;
  const current = { store: null as unknown as MessageStore, spec: "" };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "message-store-bridge-"));
    if (backend === "postgres") url = await createTestDatabase(inject("postgresUrl"), "bridge");
  });
  beforeEach(async () => {
    const location = backend === "json" ? join(dir, `store-${files++}.json`) : url;
    current.spec = `${backend}:${location}`;
    current.store = await MessageStore.initialize(configOf(backend, location));
  });
  afterEach(() => current.store.close());
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (url) await dropTestDatabase(url);
  });
  return current;
}
