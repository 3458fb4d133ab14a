import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CorruptDataError } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { JsonMessageStore } from "../src/index.js";
import { crashCopy, message, tempDir } from "./helpers.js";

/** Opens `path` expecting a CorruptDataError, and checks that no file was touched. */
async function expectCorrupt(path: string): Promise<CorruptDataError> {
  const files = [path, `${path}.journal`];
  const before = files.map((f) => (existsSync(f) ? readFileSync(f) : null));
  const error = await JsonMessageStore.open({ path }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CorruptDataError);
  expect(files.map((f) => (existsSync(f) ? readFileSync(f) : null))).toEqual(before);
  expect(existsSync(`${path}.lock`)).toBe(false); // the lock was released
  expect(existsSync(`${path}.tmp`)).toBe(false);
  return error as CorruptDataError;
}

async function journaledStore(): Promise<string> {
  const path = join(tempDir(), "db.json");
  const store = await JsonMessageStore.open({ path });
  await store.storeConversation({ id: "c1", userId: "u1", createdAt: 1 });
  await store.storeMessage(message("m1", "c1", 2));
  await store.storeMessage(message("m2", "c1", 3));
  const copy = crashCopy(path);
  await store.close();
  return copy;
}

describe("a corrupt main file", () => {
  it("gives CorruptDataError naming the file, line and column, and is left untouched", async () => {
    const path = join(tempDir(), "db.json");
    writeFileSync(path, '{\n  "format": "message-store",\n  "version": 1,\n  "messages": [,]\n}\n');
    const error = await expectCorrupt(path);
    expect(error.code).toBe("CORRUPT_DATA");
    expect(error.location).toBe(`${path}:4:16`);
    expect(error.message).toContain(path);
    expect(error.message).toContain("line 4, column 16");
    expect(error.message).toMatch(/^\[message-store\] \[json\] /);
  });

  it("reports a truncated file at its end", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await store.storeConversation({ id: "c1", userId: "u1", createdAt: 1 });
    await store.close();
    const text = readFileSync(path, "utf8");
    writeFileSync(path, text.slice(0, 100));
    const error = await expectCorrupt(path);
    expect(error.message).toContain("unexpected end of data");
  });

  it("names the record that fails the model", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await store.storeConversation({ id: "c1", userId: "u1", createdAt: 1 });
    await store.storeMessages([message("m1", "c1", 2), message("m2", "c1", 3)]);
    await store.close();
    const doc = JSON.parse(readFileSync(path, "utf8"));
    doc.messages[1].sentimentScore = 7;
    writeFileSync(path, JSON.stringify(doc, null, 2));
    const error = await expectCorrupt(path);
    expect(error.location).toBe(`${path} messages[1]`);
    expect(error.message).toContain('messages[1] (id "m2")');
    expect(error.message).toContain("sentimentScore");
  });

  it("rejects broken references, duplicates and foreign documents", async () => {
    const dir = tempDir();
    const conversation = {
      id: "c1",
      userId: "u1",
      agentId: null,
      title: null,
      createdAt: 1,
      updatedAt: 1,
      tags: [],
      metadata: {},
    };
    const m = {
      id: "m1",
      conversationId: "c1",
      userId: "u1",
      role: "user",
      originalContent: "",
      timestamp: 1,
    };
    const cases: [unknown, RegExp][] = [
      [{ format: "message-store", version: 1, messages: [m] }, /conversation "c1" does not exist/],
      [
        { format: "message-store", version: 1, conversations: [conversation, conversation] },
        /repeats an id/,
      ],
      [{ format: "message-store", version: 3 }, /newer/],
      [{ format: "message-store", version: 0 }, /unsupported "version"/],
      [{ format: "something-else", version: 1 }, /not a message-store document/],
      [[1, 2], /not a message-store document/],
      [{ format: "message-store", version: 1, extra: true }, /unknown key "extra"/],
    ];
    for (const [i, [doc, pattern]] of cases.entries()) {
      const path = join(dir, `db${i}.json`);
      writeFileSync(path, JSON.stringify(doc));
      expect((await expectCorrupt(path)).message).toMatch(pattern);
    }
  });
});

describe("a corrupt journal", () => {
  it("gives CorruptDataError naming the line when a line in the middle is malformed", async () => {
    const path = await journaledStore();
    const lines = readFileSync(`${path}.journal`, "utf8").split("\n");
    lines[1] = lines[1]!.slice(0, 30); // damage the second of three lines
    writeFileSync(`${path}.journal`, lines.join("\n"));
    const error = await expectCorrupt(path);
    expect(error.location).toBe(`${path}.journal:2`);
    expect(error.message).toContain("line 2");
    expect(error.message).toMatch(/byte \d+/);
  });

  it("gives CorruptDataError when a complete line fails the model", async () => {
    const path = await journaledStore();
    const lines = readFileSync(`${path}.journal`, "utf8").split("\n");
    const record = JSON.parse(lines[2]!);
    record.messages[0].role = "wizard";
    lines[2] = JSON.stringify(record);
    writeFileSync(`${path}.journal`, lines.join("\n"));
    const error = await expectCorrupt(path);
    expect(error.location).toBe(`${path}.journal:3`);
    expect(error.message).toContain("role");
  });

  it("gives CorruptDataError when a line does not apply to the main file", async () => {
    const path = await journaledStore();
    const lines = readFileSync(`${path}.journal`, "utf8").split("\n");
    writeFileSync(`${path}.journal`, `${lines.slice(1).join("\n")}`); // conversation line lost
    const error = await expectCorrupt(path);
    expect(error.location).toBe(`${path}.journal:1`);
    expect(error.message).toContain("does not exist");
  });

  it("gives CorruptDataError when the journal is newer than the main file", async () => {
    const path = await journaledStore();
    const lines = readFileSync(`${path}.journal`, "utf8").split("\n");
    const record = JSON.parse(lines[0]!);
    record.gen += 5;
    lines[0] = JSON.stringify(record);
    writeFileSync(`${path}.journal`, lines.join("\n"));
    const error = await expectCorrupt(path);
    expect(error.message).toContain("generation");
  });
});
