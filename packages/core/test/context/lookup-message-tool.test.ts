import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  compressMessages,
  LOOKUP_MESSAGE_TOOL,
  lookupMessage,
  lookupMessageParameters,
  lookupMessageToolDefinition,
  MessageSchema,
  ValidationError,
} from "../../src/index.js";
import { recordingStore } from "../support/recording-driver.js";
import { msg } from "../support/store-fixtures.js";

async function store() {
  const s = recordingStore();
  for (const u of ["u1", "u2"]) {
    await s.storeConversation({ id: `${u}-c`, userId: u, createdAt: 1 });
    await s.storeMessage(
      msg(`${u}-m`, 2, {
        conversationId: `${u}-c`,
        userId: u,
        role: "assistant",
        originalContent: "x".repeat(1200),
      }),
    );
  }
  return s;
}

describe("lookup_message tool", () => {
  it("is a valid OpenAI function tool named in the compression hint", () => {
    const tool: OpenAI.Chat.Completions.ChatCompletionTool = lookupMessageToolDefinition;
    expect(tool.type).toBe("function");
    expect(lookupMessageToolDefinition.function.name).toBe(LOOKUP_MESSAGE_TOOL);
    expect(lookupMessageParameters.required).toEqual(["id"]);
    const long = MessageSchema.parse(
      msg("abc", 1, { role: "assistant", originalContent: "y".repeat(1200) }),
    );
    const [m] = compressMessages([long], true);
    expect(m!.originalContent).toContain(`call the ${LOOKUP_MESSAGE_TOOL} tool with id "abc"`);
  });

  it("returns the full text of the user's own message", async () => {
    const s = await store();
    expect(await lookupMessage(s, { id: "u1-m" }, { userId: "u1" })).toEqual({
      found: true,
      id: "u1-m",
      role: "assistant",
      content: "x".repeat(1200),
      timestamp: 2,
    });
  });

  it("another user's, unknown, soft-deleted or malformed ids are not found (never thrown)", async () => {
    const s = await store();
    expect(await lookupMessage(s, { id: "u2-m" }, { userId: "u1" })).toMatchObject({
      found: false,
      id: "u2-m",
    });
    expect(await lookupMessage(s, { id: "nope" }, { userId: "u1" })).toMatchObject({
      found: false,
    });
    await s.softDeleteMessage("u1-m");
    expect(await lookupMessage(s, { id: "u1-m" }, { userId: "u1" })).toMatchObject({
      found: false,
    });
    for (const input of [null, {}, { id: 5 }, { id: "" }, { id: { $ne: null } }, "u1-m"]) {
      expect(await lookupMessage(s, input, { userId: "u1" })).toEqual({
        found: false,
        id: null,
        error: expect.any(String),
      });
    }
  });

  it("a flagged message is withheld, as the context window drops it: not found, with the reason", async () => {
    const s = await store();
    await s.flagMessage("u1-m");
    const result = await lookupMessage(s, { id: "u1-m" }, { userId: "u1" });
    expect(result).toEqual({
      found: false,
      id: "u1-m",
      error: expect.stringMatching(/flagged.*withheld/),
    });
    expect(JSON.stringify(result)).not.toContain("xxx");
    await s.flagMessage("u1-m", false);
    expect(await lookupMessage(s, { id: "u1-m" }, { userId: "u1" })).toMatchObject({
      found: true,
    });
  });

  it("scopes by tenant too, and rejects an invalid scope", async () => {
    const s = recordingStore();
    await s.storeConversation({ id: "c", userId: "u1", tenantId: "t1", createdAt: 1 });
    await s.storeMessage(msg("m", 2, { conversationId: "c" }));
    expect(await lookupMessage(s, { id: "m" }, { userId: "u1", tenantId: "t1" })).toMatchObject({
      found: true,
    });
    expect(await lookupMessage(s, { id: "m" }, { userId: "u1", tenantId: "t2" })).toMatchObject({
      found: false,
    });
    await expect(lookupMessage(s, { id: "m" }, { userId: "" })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });
});

describe("lookup_message tool scoped to one conversation", () => {
  it("a message of another conversation of the same user is not found", async () => {
    const s = recordingStore();
    for (const c of ["c1", "c2"]) {
      await s.storeConversation({ id: c, userId: "u1", createdAt: 1 });
      await s.storeMessage(msg(`${c}-m`, 2, { conversationId: c, userId: "u1" }));
    }
    const scope = { userId: "u1", conversationId: "c1" };
    expect(await lookupMessage(s, { id: "c1-m" }, scope)).toMatchObject({ found: true });
    expect(await lookupMessage(s, { id: "c2-m" }, scope)).toMatchObject({
      found: false,
      id: "c2-m",
    });
    expect(await lookupMessage(s, { id: "c2-m" }, { userId: "u1" })).toMatchObject({
      found: true,
    });
  });
});
