import { type FileHandle, mkdtemp, open, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message, TurnTrace } from "@message-store/core";
import { JsonMessageStore } from "@message-store/json";
import {
  PER_CONVERSATION,
  syntheticConversation,
  syntheticMessage,
  syntheticTrace,
  traceMessageIndex,
} from "./synthetic.js";
import type { BenchTarget, BulkLoader, RawStore } from "./types.js";

/**
 * The raw minimum of a durable embedded store: one JSON line per write appended to a log and
 * fdatasync'ed (as the store's journal does), and reads served from plain in-memory arrays
 * (`slice`), with no validation, copying or indexing beyond one array per conversation and agent.
 */
class RawJsonLog implements RawStore {
  readonly byConversation = new Map<string, Message[]>();
  readonly byAgent = new Map<string, TurnTrace[]>();
  constructor(private readonly handle: FileHandle) {}

  async append(text: string): Promise<void> {
    await this.handle.write(text);
    await this.handle.datasync();
  }

  async storeConversation(c: { id: string }): Promise<void> {
    await this.append(`${JSON.stringify(c)}\n`);
    if (!this.byConversation.has(c.id)) this.byConversation.set(c.id, []);
  }

  async storeMessages(messages: Message[]): Promise<void> {
    await this.append(`${messages.map((m) => JSON.stringify(m)).join("\n")}\n`);
    for (const m of messages) this.remember(m);
  }

  remember(m: Message): void {
    const list = this.byConversation.get(m.conversationId);
    if (list) list.push(m);
    else this.byConversation.set(m.conversationId, [m]);
  }

  rememberTrace(t: TurnTrace): void {
    const list = this.byAgent.get(t.agentId);
    if (list) list.push(t);
    else this.byAgent.set(t.agentId, [t]);
  }

  async immediateContext(conversationId: string, n: number): Promise<unknown[]> {
    return (this.byConversation.get(conversationId) ?? []).slice(-n);
  }

  async storeTrace(t: TurnTrace): Promise<void> {
    await this.append(`${JSON.stringify(t)}\n`);
    this.rememberTrace(t);
  }

  async tracesByAgent(agentId: string, since: number, until: number): Promise<unknown[]> {
    const list = this.byAgent.get(agentId) ?? [];
    return list.slice(lowerBound(list, since), lowerBound(list, until)).reverse();
  }

  async deleteConversation(id: string): Promise<void> {
    await this.append(`${JSON.stringify({ delete: id })}\n`);
    this.byConversation.delete(id);
  }

  close(): Promise<void> {
    return this.handle.close();
  }

  async clear(): Promise<void> {
    await this.handle.truncate(0);
    this.byConversation.clear();
    this.byAgent.clear();
  }
}

function lowerBound(list: readonly TurnTrace[], timestamp: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.timestamp < timestamp) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Writes the synthetic dataset as the store's main file (format version 1, generation 0). */
export async function writeSyntheticFile(
  path: string,
  messages: number,
  traces: number,
): Promise<void> {
  const handle = await open(path, "w");
  try {
    let buffer: string[] = [];
    let size = 0;
    const write = async (text: string) => {
      buffer.push(text);
      size += text.length;
      if (size > 1 << 20) {
        await handle.write(buffer.join(""));
        buffer = [];
        size = 0;
      }
    };
    await write('{"format":"message-store","version":1,"generation":0,\n"conversations":[\n');
    const conversations = Math.ceil(messages / PER_CONVERSATION);
    for (let c = 0; c < conversations; c++) {
      const last = syntheticMessage(Math.min(messages, (c + 1) * PER_CONVERSATION) - 1).timestamp;
      const doc = { ...syntheticConversation(c), lastMessageAt: last };
      await write(`${c ? ",\n" : ""}${JSON.stringify(doc)}`);
    }
    await write('],\n"messages":[\n');
    for (let g = 0; g < messages; g++)
      await write(`${g ? ",\n" : ""}${JSON.stringify(syntheticMessage(g))}`);
    await write('],\n"turnTraces":[\n');
    for (let k = 0; k < traces; k++)
      await write(`${k ? ",\n" : ""}${JSON.stringify(syntheticTrace(traceMessageIndex(k)))}`);
    await write("]}\n");
    await handle.write(buffer.join(""));
  } finally {
    await handle.close();
  }
}

/** The JSON target, with what scenario 6 needs: the file and a way to reopen it. */
export interface JsonTarget extends BenchTarget {
  readonly mainFile: string;
  /** Size of the main file in bytes (after a compaction, e.g. right after the loader). */
  fileSize(): Promise<number>;
  /** Closes the store (which compacts it), runs `fn`, reopens; resolves to `fn`'s result. */
  whileClosed<T>(fn: () => Promise<T>): Promise<T>;
}

/** A store file in a fresh temp directory, plus the raw log next to it. */
export async function openJson(): Promise<JsonTarget> {
  const dir = await mkdtemp(join(tmpdir(), "ms-bench-json-"));
  const mainFile = join(dir, "store.json");
  const openStore = () => JsonMessageStore.open({ storage: "json", path: mainFile });
  let store: JsonMessageStore = await openStore();
  const raw = new RawJsonLog(await open(join(dir, "raw.log"), "a"));
  const counts = { messages: 0, traces: 0 };
  const whileClosed = async <T>(fn: () => Promise<T>): Promise<T> => {
    await store.close();
    try {
      return await fn();
    } finally {
      store = await openStore();
    }
  };
  const loader: BulkLoader = {
    method:
      "the main file written directly (the store's documented format), then opened by the store",
    async grow(target) {
      await whileClosed(async () => {
        await rm(`${mainFile}.journal`, { force: true });
        await writeSyntheticFile(mainFile, target.messages, target.traces);
      });
      for (let g = counts.messages; g < target.messages; g++) raw.remember(syntheticMessage(g));
      for (let k = counts.traces; k < target.traces; k++)
        raw.rememberTrace(syntheticTrace(traceMessageIndex(k)));
      counts.messages = target.messages;
      counts.traces = target.traces;
    },
  };
  return {
    name: "json",
    server: `@message-store/json file store in ${dir} (journal fdatasync per write)`,
    get store() {
      return store;
    },
    raw,
    loader,
    mainFile,
    whileClosed,
    async fileSize() {
      return (await stat(mainFile)).size;
    },
    async seed(side, conversation, messages, traces) {
      if (side === "raw") {
        await raw.storeConversation(conversation);
        await raw.storeMessages(messages);
        await raw.append(`${traces.map((t) => JSON.stringify(t)).join("\n")}\n`);
        for (const t of traces) raw.rememberTrace(t);
        return;
      }
      await store.storeConversation(conversation);
      for (let i = 0; i < messages.length; i += 500)
        await store.storeMessages(messages.slice(i, i + 500));
      for (const t of traces) await store.storeTurnTrace(t);
    },
    async reset() {
      await whileClosed(async () => {
        await rm(mainFile, { force: true });
        await rm(`${mainFile}.journal`, { force: true });
      });
      await raw.clear();
      counts.messages = 0;
      counts.traces = 0;
    },
    async close() {
      await store.close();
      await raw.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
