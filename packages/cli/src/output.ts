import { once } from "node:events";
import type { Writable } from "node:stream";

/**
 * The output stream was closed by its reader (`message-store export | head`): the command stops
 * at its next write, closes its store (releasing the lock) and exits 0 without a message.
 */
export class OutputClosedError extends Error {
  override name = "OutputClosedError";
}

/**
 * Writes `text`, waiting for the stream to drain when its buffer is full (backpressure). Rejects
 * with {@link OutputClosedError} once the stream is destroyed (a broken pipe), instead of
 * waiting forever for a `drain` that never comes.
 */
export async function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  const writable = stream as Partial<Writable>;
  if (writable.destroyed || writable.writableEnded) {
    throw new OutputClosedError("the output was closed");
  }
  if (stream.write(text)) return;
  // Whichever of `drain` and `close` comes first, the listeners of the other are removed: a long
  // export waits for `drain` many times, and must not pile up listeners on its stream.
  const settled = new AbortController();
  const { signal } = settled;
  const closed = once(stream, "close", { signal }).then(() => {
    throw new OutputClosedError("the output was closed");
  });
  try {
    await Promise.race([once(stream, "drain", { signal }), closed]);
  } catch (error) {
    if (error instanceof OutputClosedError || isBrokenPipe(error)) {
      throw new OutputClosedError("the output was closed");
    }
    throw error;
  } finally {
    settled.abort();
  }
}

/** True for the error a write to a closed pipe gets. */
function isBrokenPipe(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === "EPIPE";
}

/** Writes `text` followed by a newline. */
export function writeLine(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return write(stream, `${text}\n`);
}
