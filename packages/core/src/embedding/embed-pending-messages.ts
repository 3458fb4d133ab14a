import { ValidationError } from "../errors.js";
import { EmbeddingSchema, type MessageRole } from "../models/message.js";
import type { MessageStoreApi } from "../store/message-store-api.js";

/** Turns texts into vectors, one per text, in order (an AI SDK `embedMany` call fits). */
export type EmbedFunction = (texts: string[]) => Promise<number[][]>;

/** How far {@link embedPendingMessages} got. */
export interface EmbedProgress {
  /** Messages whose embedding was stored. */
  embedded: number;
  /** Messages embedded but not stored: their text changed (or they went away) meanwhile. */
  skipped: number;
  /** Calls of `embed` so far. */
  batches: number;
}

export interface EmbedPendingOptions {
  embed: EmbedFunction;
  /** Texts per `embed` call. Default 64. */
  batchSize?: number;
  /** Roles to embed. Default user and assistant. */
  roles?: MessageRole[];
  /** Embed flagged messages too. Default `false`. */
  includeFlagged?: boolean;
  /** Called after every batch. */
  onProgress?: (progress: EmbedProgress) => void;
  /** Stops before the next batch; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
}

const DEFAULT_BATCH = 64;

/**
 * The embedding worker: embeds every message pending embedding (see `listPendingEmbeddings`) in
 * batches, and stores each vector only if the message still has the text it was computed from
 * (`setEmbeddings`). Idempotent and resumable: it only ever reads pending messages, so running it
 * again (after a crash, an abort or new messages) embeds exactly what is left, and a message whose
 * text changes later becomes pending again. Use a scoped view (`store.forTenant(t)`) to embed one
 * tenant's messages. Resolves to the totals.
 *
 * Throws `UnsupportedOperationError` unless `store.capabilities.embeddingQueue`, `ValidationError`
 * when `embed` returns a wrong number of vectors or a vector that is not finite numbers, and
 * whatever `embed` throws (the batch is then not stored; earlier batches stay).
 */
export async function embedPendingMessages(
  store: MessageStoreApi,
  options: EmbedPendingOptions,
): Promise<EmbedProgress> {
  const { embed, batchSize = DEFAULT_BATCH, roles, includeFlagged, onProgress, signal } = options;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 10_000) {
    throw new ValidationError("invalid batchSize: must be an integer from 1 to 10000", [
      { path: ["batchSize"], message: "must be an integer from 1 to 10000" },
    ]);
  }
  const progress: EmbedProgress = { embedded: 0, skipped: 0, batches: 0 };
  let cursor: string | null = null;
  for (;;) {
    signal?.throwIfAborted();
    const page = await store.listPendingEmbeddings({
      limit: batchSize,
      cursor,
      ...(roles ? { roles } : {}),
      ...(includeFlagged !== undefined ? { includeFlagged } : {}),
    });
    if (page.items.length === 0) break;
    const texts = page.items.map((m) => m.originalContent);
    const vectors = checkVectors(await embed(texts), texts.length);
    signal?.throwIfAborted();
    const stored = await store.setEmbeddings(
      page.items.map((m, i) => ({
        id: m.id,
        embedding: vectors[i]!,
        originalContent: m.originalContent,
      })),
    );
    progress.embedded += stored;
    progress.skipped += page.items.length - stored;
    progress.batches++;
    onProgress?.({ ...progress });
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  return progress;
}

function checkVectors(vectors: unknown, count: number): number[][] {
  if (!Array.isArray(vectors) || vectors.length !== count) {
    const got = Array.isArray(vectors) ? `${vectors.length} vectors` : typeof vectors;
    throw new ValidationError(`invalid embed() result: expected ${count} vectors, got ${got}`, [
      { path: [], message: `expected ${count} vectors` },
    ]);
  }
  vectors.forEach((v, i) => {
    if (!EmbeddingSchema.safeParse(v).success) {
      throw new ValidationError(
        `invalid embed() result at ${i}: a vector must be 1 to 65536 finite numbers`,
        [{ path: [i], message: "not a vector of finite numbers" }],
      );
    }
  });
  return vectors as number[][];
}
