import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { MastraDBMessage } from "@mastra/core/agent/message-list";
import { LibSQLStore } from "@mastra/libsql";
import type { Message } from "@message-store/core";
import { MessageStoreSaver } from "@message-store/langgraph";
import { SqliteMessageStore } from "@message-store/sqlite";
import { recordAgentThread } from "./peers/langgraph-steps.js";
import { fmt, sampleRotating, summarize, timed } from "./stats.js";

/*
 * `pnpm bench sqlite`: the SQLite store against the peers' own SQLite defaults, interleaved
 * call by call on one machine: Mastra's `LibSQLStore` (memory domain) on a `file:` database and
 * LangGraph's `SqliteSaver` (better-sqlite3). Prints markdown tables.
 */

const N = 20;
const HISTORY = 1000;

interface System {
  name: string;
  createConversation(id: string): Promise<void>;
  store(messages: Message[]): Promise<void>;
  lastN(conversationId: string, n: number): Promise<unknown[]>;
  close(): Promise<void>;
}

function message(conversationId: string, n: number, role: "user" | "assistant"): Message {
  return {
    id: `${conversationId}-m-${String(n).padStart(7, "0")}`,
    conversationId,
    userId: "user-bench",
    role,
    originalContent: `message ${n}: ${"lorem ipsum dolor sit amet ".repeat(6)}`,
    timestamp: 1_700_000_000_000 + n * 1000,
  } as Message;
}

async function ours(path: string, synchronous: "FULL" | "NORMAL"): Promise<System> {
  const store = await SqliteMessageStore.open({ path, synchronous });
  return {
    name: `ours (${synchronous})`,
    async createConversation(id) {
      await store.storeConversation({ id, userId: "user-bench" });
    },
    async store(messages) {
      await store.storeMessages(messages);
    },
    lastN: (id, n) => store.getImmediateContext(id, n),
    close: () => store.close(),
  };
}

async function mastra(url: string): Promise<System> {
  const storage = new LibSQLStore({ id: "bench-mastra-libsql", url });
  await storage.init();
  const memory = await storage.getStore("memory");
  if (!memory) throw new Error("@mastra/libsql has no memory domain");
  const convert = (m: Message): MastraDBMessage =>
    ({
      id: m.id,
      role: m.role === "assistant" ? "assistant" : "user",
      threadId: m.conversationId,
      resourceId: m.userId,
      createdAt: new Date(m.timestamp),
      type: "v2",
      content: { format: 2, parts: [{ type: "text", text: m.originalContent }] },
    }) as MastraDBMessage;
  return {
    name: "Mastra LibSQLStore",
    async createConversation(id) {
      const now = new Date();
      await memory.saveThread({
        thread: {
          id,
          resourceId: "user-bench",
          title: id,
          createdAt: now,
          updatedAt: now,
          metadata: {},
        },
      });
    },
    async store(messages) {
      await memory.saveMessages({ messages: messages.map(convert) });
    },
    async lastN(threadId, n) {
      const { messages } = await memory.listMessages({
        threadId,
        perPage: n,
        page: 0,
        orderBy: { field: "createdAt", direction: "DESC" },
      });
      return messages.reverse();
    },
    close: async () => {},
  };
}

function row(label: string, names: string[], samples: number[][]): string {
  const stats = samples.map(summarize);
  const peer = stats[stats.length - 1]!;
  const cells = stats.map((s) => `${fmt(s.p50)} / ${fmt(s.p99)}`);
  const ratios = stats.slice(0, -1).map((s) => `${(peer.p50 / s.p50).toFixed(2)}×`);
  if (names.length !== samples.length) throw new Error("one name per system");
  return `| ${label} | ${cells.join(" | ")} | ${ratios.join(" | ")} |`;
}

async function memoryDomain(dir: string, iterations: number): Promise<string[]> {
  const systems = [
    await ours(join(dir, "ours-full.db"), "FULL"),
    await ours(join(dir, "ours-normal.db"), "NORMAL"),
    await mastra(`file:${join(dir, "mastra.db")}`),
  ];
  const names = systems.map((s) => s.name);
  const lines = [
    `| operation (ms, p50 / p99) | ${names.join(" | ")} | Mastra ÷ ours FULL | Mastra ÷ ours NORMAL |`,
    `|---|${names.map(() => "---").join("|")}|---|---|`,
  ];
  for (const s of systems) {
    await s.createConversation("big");
    for (let i = 0; i < HISTORY; i += 100)
      await s.store(Array.from({ length: 100 }, (_, k) => message("big", i + k, "user")));
  }
  let next = HISTORY;
  const ingest = await sampleRotating(iterations, (i) =>
    systems.map((s) => async () => {
      await s.createConversation(`ingest-${i}`);
      await s.store(Array.from({ length: 100 }, (_, k) => message(`ingest-${i}`, k, "user")));
    }),
  );
  lines.push(row("ingest of 100 (new conversation)", names, ingest));
  const append = await sampleRotating(iterations, () => {
    const n = next++;
    return systems.map((s) => () => s.store([message("big", n, "user")]));
  });
  lines.push(row(`single append (at ${HISTORY}+ messages)`, names, append));
  const last = await sampleRotating(iterations, () => systems.map((s) => () => s.lastN("big", N)));
  lines.push(row(`last ${N} of ${HISTORY}+`, names, last));
  const turn = await sampleRotating(iterations, () => {
    const n = next;
    next += 2;
    return systems.map((s) => async () => {
      await s.store([message("big", n, "user")]);
      await s.lastN("big", N);
      await s.store([message("big", n + 1, "assistant")]);
    });
  });
  lines.push(row("whole turn (append, last 20, append)", names, turn));
  for (const s of systems) await s.close();
  return lines;
}

async function checkpoints(dir: string, threads: number): Promise<string[]> {
  const full = await SqliteMessageStore.open({ path: join(dir, "ours-saver-full.db") });
  const normal = await SqliteMessageStore.open({
    path: join(dir, "ours-saver-normal.db"),
    synchronous: "NORMAL",
  });
  const owner = { userId: "bench-user", agentId: "bench" };
  const savers: { name: string; saver: BaseCheckpointSaver }[] = [
    { name: "ours (FULL)", saver: new MessageStoreSaver(full, owner) },
    { name: "ours (NORMAL)", saver: new MessageStoreSaver(normal, owner) },
    { name: "SqliteSaver", saver: SqliteSaver.fromConnString(join(dir, "sqlite-saver.db")) },
  ];
  const runs = [];
  for (let t = 0; t < threads; t++) runs.push(await recordAgentThread(10));
  const put: number[][] = savers.map(() => []);
  const get: number[][] = savers.map(() => []);
  let k = 0;
  for (const [t, run] of runs.entries()) {
    for (const p of run) {
      for (let j = 0; j < savers.length; j++) {
        const i = (k + j) % savers.length;
        const s = savers[i]!;
        const thread = `thread-${t}`;
        const config: RunnableConfig = {
          ...p.config,
          configurable: { ...p.config.configurable, thread_id: thread },
        };
        put[i]!.push(
          await timed(() => s.saver.put(config, p.checkpoint, p.metadata, p.newVersions)),
        );
        get[i]!.push(await timed(() => s.saver.getTuple({ configurable: { thread_id: thread } })));
      }
      k++;
    }
  }
  await full.close();
  await normal.close();
  const names = savers.map((s) => s.name);
  return [
    `| operation (ms, p50 / p99) | ${names.join(" | ")} | SqliteSaver ÷ ours FULL | SqliteSaver ÷ ours NORMAL |`,
    "|---|---|---|---|---|---|",
    row("checkpoint put", names, put),
    row("getTuple (latest)", names, get),
  ];
}

export async function sqliteBench(argv: string[]): Promise<void> {
  const iterations = Number(argv[argv.indexOf("--iterations") + 1] || 200);
  const threads = Number(argv[argv.indexOf("--threads") + 1] || 20);
  const dir = await mkdtemp(join(tmpdir(), "ms-bench-sqlite-"));
  const load = [loadavg()[0]!];
  try {
    const memory = await memoryDomain(dir, iterations);
    const saver = await checkpoints(dir, threads);
    load.push(loadavg()[0]!);
    console.log(
      `\nSQLite vs peers, ${new Date().toISOString()}, ${iterations} interleaved iterations per row, ${threads} recorded LangGraph threads of 10 turns; load average ${load[0]!.toFixed(2)} → ${load[1]!.toFixed(2)}\n`,
    );
    console.log(memory.join("\n"));
    console.log("");
    console.log(saver.join("\n"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
