import { once } from "node:events";

/** Writes `text`, waiting for the stream to drain when its buffer is full (backpressure). */
export async function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, "drain");
}

/** Writes `text` followed by a newline. */
export function writeLine(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return write(stream, `${text}\n`);
}
