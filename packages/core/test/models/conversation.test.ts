import { afterEach, describe, expect, it, vi } from "vitest";
import {
  ConversationInputSchema,
  ConversationRecordSchema,
  ConversationSchema,
} from "../../src/index.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("ConversationInputSchema", () => {
  it("fills defaults; createdAt defaults to now and updatedAt to createdAt", () => {
    vi.useFakeTimers({ now: 1_234_567 });
    expect(ConversationInputSchema.parse({ id: "c", userId: "u" })).toEqual({
      id: "c",
      userId: "u",
      tenantId: null,
      agentId: null,
      title: null,
      description: null,
      status: "active",
      createdAt: 1_234_567,
      updatedAt: 1_234_567,
      deletedAt: null,
      tags: [],
      metadata: {},
    });
    expect(ConversationInputSchema.parse({ id: "c", userId: "u", createdAt: 5 })).toMatchObject({
      createdAt: 5,
      updatedAt: 5,
    });
    expect(
      ConversationInputSchema.parse({ id: "c", userId: "u", createdAt: 5, updatedAt: 9 }),
    ).toMatchObject({ createdAt: 5, updatedAt: 9 });
  });

  it("keeps every given field", () => {
    const full = {
      id: "c",
      userId: "u",
      tenantId: "acme",
      agentId: "a",
      title: "t\u0000",
      description: "d",
      status: "archived",
      createdAt: 1,
      updatedAt: 2,
      deletedAt: 3,
      tags: ["x", "y"],
      metadata: { "$k.v": [1] },
    };
    expect(ConversationInputSchema.parse(full)).toEqual(full);
  });

  it.each([
    ["unknown key", { extra: 1 }],
    ["id too long", { id: "x".repeat(257) }],
    ["empty id", { id: "" }],
    ["numeric userId", { userId: 7 }],
    ["NaN createdAt", { createdAt: NaN }],
    ["Infinity updatedAt", { updatedAt: Infinity }],
    ["negative createdAt", { createdAt: -1 }],
    ["fractional createdAt", { createdAt: 1.5 }],
    ["lone surrogate title", { title: "\uD83D" }],
    ["lone surrogate tag", { tags: ["\uDE00"] }],
    ["Date in metadata", { metadata: { d: new Date() } }],
    ["metadata array", { metadata: [] }],
    ["lone surrogate metadata key", { metadata: { "\uD800": 1 } }],
    ["empty status", { status: "" }],
    ["65-character status", { status: "s".repeat(65) }],
    ["null status", { status: null }],
    ["empty tenantId", { tenantId: "" }],
    ["fractional deletedAt", { deletedAt: 1.5 }],
  ])("rejects %s", (_, patch) => {
    expect(ConversationInputSchema.safeParse({ id: "c", userId: "u", ...patch }).success).toBe(
      false,
    );
  });

  it("accepts the 256-character id and rejects 257", () => {
    const ok = ConversationInputSchema.safeParse({ id: "i".repeat(256), userId: "u" });
    expect(ok.success).toBe(true);
    const bad = ConversationInputSchema.safeParse({ id: "i".repeat(257), userId: "u" });
    expect(bad.success).toBe(false);
  });
});

describe("ConversationSchema (read side)", () => {
  const read = {
    id: "c",
    userId: "u",
    tenantId: null,
    agentId: null,
    title: null,
    description: null,
    status: "active",
    createdAt: 1,
    updatedAt: 2,
    deletedAt: null,
    tags: [],
    metadata: {},
    lastActivityAt: 3,
  };
  it("requires every field, including lastActivityAt", () => {
    expect(ConversationSchema.parse(read)).toEqual(read);
    const { lastActivityAt: _, ...missing } = read;
    expect(ConversationSchema.safeParse(missing).success).toBe(false);
    expect(ConversationSchema.safeParse({ ...read, extra: true }).success).toBe(false);
    const { status: __, ...noStatus } = read;
    expect(ConversationSchema.safeParse(noStatus).success).toBe(false);
  });
});

describe("ConversationRecordSchema (stored records)", () => {
  it("fills the fields a record written before they existed lacks", () => {
    const old = {
      id: "c",
      userId: "u",
      agentId: null,
      title: null,
      createdAt: 1,
      updatedAt: 2,
      tags: [],
      metadata: {},
    };
    expect(ConversationRecordSchema.parse(old)).toEqual({
      ...old,
      tenantId: null,
      description: null,
      status: "active",
      deletedAt: null,
    });
    const { createdAt: _, ...noCreatedAt } = old;
    expect(ConversationRecordSchema.safeParse(noCreatedAt).success).toBe(false);
  });
});
