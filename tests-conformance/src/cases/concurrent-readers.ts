import { setImmediate as nextTurn } from "node:timers/promises";
import type { MessageStoreApi } from "@message-store/core";
import type { CaseContext } from "./contract-case.js";

/** How many readers poll while a write runs. */
export const READERS = 3;

/**
 * The stores the polling readers use: other instances (other connections) when the adapter can
 * open several on one storage, else the case's own store, polled by several loops.
 */
export async function readers(ctx: CaseContext): Promise<MessageStoreApi[]> {
  if (!ctx.openAnother) return Array.from({ length: READERS }, () => ctx.store);
  const out: MessageStoreApi[] = [];
  for (let i = 0; i < READERS; i++) out.push(await ctx.openAnother());
  return out;
}

/**
 * Runs `observe` in a loop on every reader, each poll on a new turn of the event loop, until
 * `work` settles, and then once more, started after it settled: reads truly overlap the work,
 * and every reader also sees its final state. Returns the polls; when an observation fails,
 * waits for `work` to settle and throws that failure.
 */
export async function pollWhile(
  stores: MessageStoreApi[],
  work: Promise<unknown>,
  observe: (store: MessageStoreApi) => Promise<void>,
): Promise<number> {
  let done = false;
  let polls = 0;
  const finished = work.finally(() => {
    done = true;
  });
  try {
    await Promise.all(
      stores.map(async (store) => {
        // The last poll starts after the work settled, so every reader sees its final state.
        for (let last = false; !last; ) {
          last = done;
          await nextTurn();
          await observe(store);
          polls++;
        }
      }),
    );
  } catch (error) {
    // A failed observation ends the case: let the work settle first, so it does not run on
    // into stores the harness is about to close.
    await finished.catch(() => {});
    throw error;
  }
  await finished;
  return polls;
}
