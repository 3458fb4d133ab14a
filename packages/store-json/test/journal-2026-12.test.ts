import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonMessageStore } from "../src/index.js";
import { decodeLine, encodeGroup } from "../src/operation-codec.js";
import { FIXTURES, tempDir } from "./helpers.js";

/**
 * `fixtures/journal-2026-12/` was written by `fixtures/write-journal-2026-12.mjs` with the store
 * as it was before the journal's operations were derived from declarations: a journal with a
 * line of every kind of operation and group lines, left open, and `expected.json`, what that
 * store read back before its process exited. Today's store must replay it into the same state,
 * and write every line back exactly as it was written then.
 */
const DIR = join(FIXTURES, "journal-2026-12");
const bytes = (_key: string, v: unknown) => (v instanceof Uint8Array ? { bytes: [...v] } : v);
const plain = (value: unknown) => JSON.parse(JSON.stringify(value, bytes));

describe("a journal written before operations were declarations", () => {
  it("replays into the state that store read back", async () => {
    const dir = tempDir();
    for (const file of ["store.json", "store.json.journal"])
      copyFileSync(join(DIR, file), join(dir, file));
    const store = await JsonMessageStore.open({ path: join(dir, "store.json") });
    const all = { includeDeleted: true };
    const conversations = (await store.listConversations(all)).items;
    const read: Record<string, unknown> = {
      conversations,
      messages: {},
      traces: {},
      checkpoints: (await store.listCheckpoints()).items,
    };
    for (const c of conversations) {
      const items = (await store.getMessagesByConversationId(c.id, all)).items;
      (read.messages as Record<string, unknown>)[c.id] = items;
      for (const m of items)
        (read.traces as Record<string, unknown>)[m.id] = await store.getTurnTraceByMessageId(
          m.id,
          all,
        );
    }
    await store.close();
    expect(plain(read)).toEqual(JSON.parse(readFileSync(join(DIR, "expected.json"), "utf8")));
  });

  it("decodes every line and encodes it back to the same text", () => {
    const lines = readFileSync(join(DIR, "store.json.journal"), "utf8").trim().split("\n");
    const kinds = new Set<string>();
    for (const [i, text] of lines.entries()) {
      const { gen, ops } = decodeLine(JSON.parse(text), `line ${i + 1}`);
      for (const op of ops) kinds.add(op.op);
      expect(encodeGroup(ops, gen).join("")).toBe(text);
    }
    // Every kind of operation the journal knows is in the fixture.
    expect([...kinds].sort()).toEqual(
      [
        "deleteCheckpoints",
        "deleteConversation",
        "deleteMessage",
        "deleteUserData",
        "flagMessage",
        "purgeDeleted",
        "putCheckpoint",
        "putCheckpointWrites",
        "putConversation",
        "putMessages",
        "putTurnTrace",
        "restoreConversation",
        "restoreMessage",
        "setEmbeddings",
        "softDeleteConversation",
        "softDeleteMessage",
      ].sort(),
    );
  });
});
