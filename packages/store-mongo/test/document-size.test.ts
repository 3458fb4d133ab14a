import { ValidationError } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { conv, msg, openFixture, traceOf } from "./helpers.js";

const MIB = 1024 * 1024;
/** Text of `mib` MiB (one byte per character in UTF-8). */
const text = (mib: number) => "x".repeat(Math.round(mib * MIB));

describe("documents over MongoDB's 16 MiB limit are a ValidationError before any I/O", () => {
  it("a message, a batch holding one, a trace and a conversation; nothing is sent or stored", async () => {
    const f = await openFixture();
    await f.store.storeConversation(conv("c1"));
    await f.store.storeMessage(msg("m0", "c1", 1));
    const before = await f.store.getConversation("c1");
    const huge = text(17);
    const cases: [string, () => Promise<unknown>, RegExp][] = [
      [
        "message",
        () => f.store.storeMessage(msg("m-big", "c1", 2, { originalContent: huge })),
        /message "m-big" is 17 MiB as a MongoDB document; MongoDB documents are limited to 16 MiB/,
      ],
      [
        "batch",
        () =>
          f.store.storeMessages([
            msg("m-ok", "c1", 3),
            msg("m-big2", "c1", 4, { metadata: { blob: huge } }),
          ]),
        /message "m-big2" is 17 MiB/,
      ],
      [
        "trace",
        () => f.store.storeTurnTrace(traceOf("t-big", "m0", "c1", { metadata: { blob: huge } })),
        /turn trace "t-big" is 17 MiB/,
      ],
      [
        "conversation",
        () => f.store.storeConversation(conv("c-big", { metadata: { blob: huge } })),
        /conversation "c-big" is 17 MiB/,
      ],
    ];
    for (const [what, call, message] of cases) {
      let error: unknown;
      const commands = await f.commandsOf(async () => {
        error = await call().catch((e: unknown) => e);
      });
      expect(error, what).toBeInstanceOf(ValidationError);
      expect((error as Error).message, what).toMatch(/^\[message-store\] \[mongodb\] /);
      expect((error as Error).message, what).toMatch(message);
      expect(commands, `${what}: commands sent`).toEqual([]);
    }
    const ids = (await f.store.getMessagesByConversationId("c1")).items.map((m) => m.id);
    expect(ids).toEqual(["m0"]);
    expect(await f.store.getTurnTraceByMessageId("m0")).toBeNull();
    expect(await f.store.getConversation("c-big")).toBeNull();
    expect(await f.store.getConversation("c1")).toEqual(before);
  });

  it("a message just under the limit is stored and read back", async () => {
    const f = await openFixture();
    await f.store.storeConversation(conv("c1"));
    const content = text(15.5);
    await f.store.storeMessage(msg("m-15", "c1", 1, { originalContent: content }));
    expect((await f.store.getMessage("m-15"))?.originalContent.length).toBe(content.length);
  });
});
