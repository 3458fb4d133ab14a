import { badRequest } from "./params.js";

/** Where the next transcript page starts: the store's message cursor and the trace span start. */
export interface TranscriptPosition {
  store: string;
  since: number;
}

/** The studio's opaque transcript cursor (base64url JSON of a {@link TranscriptPosition}). */
export const transcriptCursor = {
  encode(position: TranscriptPosition): string {
    return Buffer.from(JSON.stringify(position)).toString("base64url");
  },
  /** `null` for no cursor; a 400 answer for one this server did not make. */
  decode(cursor: string | undefined): TranscriptPosition | null {
    if (cursor === undefined) return null;
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    } catch {
      value = null;
    }
    const position = value as Partial<TranscriptPosition> | null;
    if (
      typeof position?.store !== "string" ||
      typeof position.since !== "number" ||
      !Number.isSafeInteger(position.since)
    ) {
      throw badRequest(`"cursor" is not a transcript cursor`);
    }
    return { store: position.store, since: position.since };
  },
};
