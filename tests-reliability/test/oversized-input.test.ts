import { statSync } from "node:fs";
import { join } from "node:path";
import { isMessageStoreError, type MessageInput, MessageStore } from "@message-store/core";
import { JsonMessageStore } from "@message-store/json";
import {
  createTestDatabase,
  type PostgresServer,
  startEmbeddedPostgres,
} from "@message-store/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storedIds } from "./support/backends.js";
import { conversation, message } from "./support/messages.js";
import { tempDir } from "./support/temp-dir.js";

const MIB = 1024 * 1024;
/** One string shared by every message: the batch's JSON is big, this process's memory is not. */
const ONE_MIB = "x".repeat(MIB);

let server: PostgresServer;
let url: string;

beforeAll(async () => {
  server = await startEmbeddedPostgres();
  url = await createTestDatabase(server.url, "oversized");
});
afterAll(async () => {
  await server?.stop();
});

function batchOf(prefix: string, conversationId: string, mib: number): MessageInput[] {
  return Array.from({ length: mib }, (_, i) =>
    message(`${prefix}-${i}`, conversationId, 1_000 + i, 0, { originalContent: ONE_MIB }),
  );
}

describe("oversized input", () => {
  it("postgres: a batch whose JSON exceeds JavaScript's longest string (~512 MiB) is a ValidationError, and a 300 MiB one the server refuses is a StorageError; nothing of either is stored", async () => {
    const store = await MessageStore.initialize({ storage: "postgres", dsn: url });
    try {
      const before = await store.storeConversation(conversation("huge"));
      const cases = [
        {
          mib: 600,
          code: "VALIDATION",
          message: /input too large: its JSON would exceed JavaScript's longest string/,
        },
        { mib: 300, code: "STORAGE", message: /PostgreSQL cannot store data \(54000\)/ },
      ];
      for (const { mib, code, message: pattern } of cases) {
        const batch = batchOf(`h${mib}`, "huge", mib);
        const started = Date.now();
        const error = await store.storeMessages(batch).then(
          () => new Error("stored"),
          (e: unknown) => e,
        );
        console.info(
          `postgres batch of ${mib} MiB: ${isMessageStoreError(error) ? error.code : String(error)} after ${Date.now() - started} ms: ${String((error as Error).message).slice(0, 160)}`,
        );
        expect(isMessageStoreError(error) && error.code, String(error)).toBe(code);
        expect((error as Error).message).toMatch(/^\[message-store\] \[postgres\] /);
        expect((error as Error).message).toMatch(pattern);
        expect(
          (
            await storedIds(
              url,
              batch.map((m) => m.id!),
            )
          ).size,
        ).toBe(0);
      }
      expect((await store.getConversation("huge"))?.lastActivityAt).toBe(before.lastActivityAt);
      // The store is unharmed.
      await store.storeMessage(message("h-after", "huge", 5));
    } finally {
      await store.close();
    }
  });

  it("json: a batch whose journal line exceeds JavaScript's longest string (~512 MiB) is a ValidationError; nothing is stored, in memory or on disk", async () => {
    const path = join(tempDir("oversized-json"), "db.json");
    const store = await JsonMessageStore.open({ path });
    try {
      const before = await store.storeConversation(conversation("huge"));
      const batch = batchOf("j600", "huge", 600);
      const started = Date.now();
      const error = await store.storeMessages(batch).then(
        () => new Error("stored"),
        (e: unknown) => e,
      );
      console.info(
        `json batch of 600 MiB: ${isMessageStoreError(error) ? error.code : String(error)} after ${Date.now() - started} ms: ${String((error as Error).message).slice(0, 160)}`,
      );
      expect(isMessageStoreError(error) && error.code, String(error)).toBe("VALIDATION");
      expect((error as Error).message).toMatch(/^\[message-store\] \[json\] input too large/);
      expect(await store.getMessage("j600-0")).toBeNull();
      expect((await store.getConversation("huge"))?.lastActivityAt).toBe(before.lastActivityAt);
      expect(statSync(`${path}.journal`).size).toBeLessThan(MIB);
      await store.storeMessage(message("j-after", "huge", 5)); // the store is unharmed
    } finally {
      await store.close();
    }
    const reopened = await JsonMessageStore.open({ path });
    expect(await reopened.getMessage("j600-0")).toBeNull();
    expect(await reopened.getMessage("j-after")).not.toBeNull();
    await reopened.close();
  });
});
