import type { Message } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { allMessages } from "../dump.js";
import { conversation, message, T0 } from "../fixtures.js";
import type { Harness } from "../harness.js";

const LONG = `HEAD-${"0123456789".repeat(100)}-TAIL`;
const compress = { maxChars: 200, keepChars: 50 };

/** getImmediateContext(…, { compress }): long assistant messages come back as head + hint + tail. */
export function compressionSuite(h: Harness): void {
  describe("getImmediateContext compression", () => {
    async function seed() {
      const c = conversation();
      await h.store.storeConversation(c);
      const stored = await h.store.storeMessages([
        message(c, { id: "user-long", role: "user", originalContent: LONG, timestamp: T0 + 1 }),
        message(c, {
          id: "assistant-long",
          role: "assistant",
          originalContent: LONG,
          timestamp: T0 + 2,
          metadata: { k: 1 },
        }),
        message(c, {
          id: "tool-long",
          role: "tool",
          originalContent: LONG,
          toolCallId: "c",
          toolName: "t",
          timestamp: T0 + 3,
        }),
        message(c, { id: "system-long", role: "system", originalContent: LONG, timestamp: T0 + 4 }),
        message(c, {
          id: "assistant-short",
          role: "assistant",
          originalContent: "short answer",
          timestamp: T0 + 5,
        }),
        message(c, {
          id: "assistant-at-limit",
          role: "assistant",
          originalContent: "y".repeat(200),
          timestamp: T0 + 6,
        }),
      ]);
      return { c, stored };
    }
    const byId = (ms: Message[], id: string) => ms.find((m) => m.id === id)!;

    it("a long assistant message becomes head + hint naming the message and the lookup_message tool + tail", async () => {
      const { c, stored } = await seed();
      const context = await h.store.getImmediateContext(c.id, 10, { compress });
      const text = byId(context, "assistant-long").originalContent;
      expect(text.length).toBeLessThan(LONG.length);
      expect(text.startsWith(LONG.slice(0, 50))).toBe(true);
      expect(text.endsWith(LONG.slice(-50))).toBe(true);
      const hint = text.slice(50, -50);
      expect(hint).toContain('"assistant-long"');
      expect(hint).toContain("lookup_message");
      expect(hint).not.toContain(LONG.slice(50, 60));
      expect({ ...byId(context, "assistant-long"), originalContent: LONG }).toEqual(
        byId(stored, "assistant-long"),
      );
    });

    it("user, tool and system messages, and short assistant messages, are never compressed", async () => {
      const { c, stored } = await seed();
      const context = await h.store.getImmediateContext(c.id, 10, { compress });
      for (const id of [
        "user-long",
        "tool-long",
        "system-long",
        "assistant-short",
        "assistant-at-limit",
      ]) {
        expect(byId(context, id), id).toEqual(byId(stored, id));
      }
      expect(context.map((m) => m.id)).toEqual(stored.map((m) => m.id));
    });

    it("the stored message is unchanged: getMessage and the transcript return it whole", async () => {
      const { c, stored } = await seed();
      await h.store.getImmediateContext(c.id, 10, { compress });
      expect((await h.store.getMessage("assistant-long"))?.originalContent).toBe(LONG);
      expect(await allMessages(h.store, c.id)).toEqual(stored);
      expect(await h.store.getImmediateContext(c.id, 10)).toEqual(stored);
    });

    it("never splits a surrogate pair", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const emoji = "😀".repeat(300);
      await h.store.storeMessage(
        message(c, { id: "emoji", role: "assistant", originalContent: emoji }),
      );
      for (const keepChars of [10, 11, 49]) {
        const [m] = await h.store.getImmediateContext(c.id, 1, {
          compress: { maxChars: 100, keepChars },
        });
        expect(m!.originalContent.isWellFormed(), `keepChars ${keepChars}`).toBe(true);
        expect(m!.originalContent.length).toBeLessThan(emoji.length);
        expect(m!.originalContent).toContain("lookup_message");
      }
    });

    it("compression applies after choosing the n most recent messages", async () => {
      const { c } = await seed();
      const context = await h.store.getImmediateContext(c.id, 2, { compress });
      expect(context.map((m) => m.id)).toEqual(["assistant-short", "assistant-at-limit"]);
      const withLong = await h.store.getImmediateContext(c.id, 5, { compress });
      expect(withLong[0]!.id).toBe("assistant-long");
      expect(withLong[0]!.originalContent.length).toBeLessThan(LONG.length);
    });
  });
}
