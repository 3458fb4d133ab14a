import { ValidationError } from "../errors.js";

/** Position after the last message of a page: `(timestamp, sequence)` ascending. */
export interface MessageKey {
  timestamp: number;
  sequence: number;
}
/** Position after the last conversation of a page: `lastActivityAt` descending, `id` ascending. */
export interface ConversationKey {
  lastActivityAt: number;
  id: string;
}
/** Position after the last trace of a page: `timestamp` descending, `id` descending. */
export interface TraceKey {
  timestamp: number;
  id: string;
}

/**
 * Position after the last checkpoint of a page: `id` descending, then `conversationId` and
 * `namespace` descending.
 */
export interface CheckpointKey {
  id: string;
  conversationId: string;
  namespace: string;
}

type CursorKind = "m" | "c" | "i" | "t" | "e" | "k";

// base64url of UTF-8 with the web platform's globals (no `Buffer`), so core runs in any runtime.
function toBase64Url(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Throws on a string that is not base64url. */
function fromBase64Url(text: string): string {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

function encode(kind: CursorKind, values: (string | number)[]): string {
  return toBase64Url(JSON.stringify([kind, ...values]));
}

function decode(kind: CursorKind, cursor: string, types: ("string" | "number")[]): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromBase64Url(cursor));
  } catch {
    parsed = null;
  }
  const ok =
    Array.isArray(parsed) &&
    parsed.length === types.length + 1 &&
    parsed[0] === kind &&
    types.every((t, i) => {
      const v = parsed[i + 1];
      return t === "number" ? Number.isSafeInteger(v) : typeof v === "string";
    });
  if (!ok) {
    throw new ValidationError(
      "invalid cursor: pass back a nextCursor returned by the same method",
      [{ path: ["cursor"], message: "invalid cursor" }],
    );
  }
  return (parsed as unknown[]).slice(1);
}

/** Opaque cursor codecs. Decoding a foreign or damaged cursor throws {@link ValidationError}. */
export const cursors = {
  message: {
    encode: (k: MessageKey): string => encode("m", [k.timestamp, k.sequence]),
    decode: (c: string): MessageKey => {
      const [timestamp, sequence] = decode("m", c, ["number", "number"]) as [number, number];
      return { timestamp, sequence };
    },
  },
  conversation: {
    encode: (k: ConversationKey): string => encode("c", [k.lastActivityAt, k.id]),
    decode: (c: string): ConversationKey => {
      const [lastActivityAt, id] = decode("c", c, ["number", "string"]) as [number, string];
      return { lastActivityAt, id };
    },
  },
  /** Conversations listed by id (`listConversations`). */
  conversationId: {
    encode: (id: string): string => encode("i", [id]),
    decode: (c: string): string => (decode("i", c, ["string"]) as [string])[0],
  },
  /** Messages listed by id (`listPendingEmbeddings`). */
  messageId: {
    encode: (id: string): string => encode("e", [id]),
    decode: (c: string): string => (decode("e", c, ["string"]) as [string])[0],
  },
  checkpoint: {
    encode: (k: CheckpointKey): string => encode("k", [k.id, k.conversationId, k.namespace]),
    decode: (c: string): CheckpointKey => {
      const [id, conversationId, namespace] = decode("k", c, ["string", "string", "string"]) as [
        string,
        string,
        string,
      ];
      return { id, conversationId, namespace };
    },
  },
  trace: {
    encode: (k: TraceKey): string => encode("t", [k.timestamp, k.id]),
    decode: (c: string): TraceKey => {
      const [timestamp, id] = decode("t", c, ["number", "string"]) as [number, string];
      return { timestamp, id };
    },
  },
};
