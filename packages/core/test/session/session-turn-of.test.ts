import { describe, expect, it } from "vitest";
import { sessionTurnOf } from "../../src/index.js";
import { recordingStore } from "../support/recording-driver.js";

describe("sessionTurnOf", () => {
  it("rewrites a stored message in place through storeSessionMessages, every field kept", async () => {
    const s = recordingStore();
    const [first, second] = await s.storeSessionMessages(
      "c",
      [
        {
          role: "assistant",
          content: "Checking.",
          toolCalls: [{ toolCallId: "t1", toolName: "weather", arguments: { city: "Oslo" } }],
          reasoningSteps: ["think"],
          tags: ["a"],
          metadata: { source: "x" },
          intent: "ask",
          sentimentScore: 0.5,
        },
        { role: "user", content: "ok" },
      ],
      { userId: "u1" },
    );
    const hidden = { ...sessionTurnOf(first!), isFlagged: true };
    const [rewritten, added] = await s.storeSessionMessages(
      "c",
      [hidden, { role: "user", content: "later" }],
      { userId: "u1" },
    );
    expect(rewritten).toEqual({ ...first, isFlagged: true });
    expect(added!.timestamp).toBeGreaterThan(second!.timestamp);
    expect((await s.getMessagesByConversationId("c")).items.map((m) => m.originalContent)).toEqual([
      "Checking.",
      "ok",
      "later",
    ]);
  });
});
