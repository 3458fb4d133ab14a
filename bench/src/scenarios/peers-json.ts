import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@message-store/core";
import { openLangChainFile } from "../peers/langchain-peer.js";
import { oursAsPeer } from "../peers/ours-peer.js";
import { type PeerSystem, peerRow } from "../peers/peer-system.js";
import type { PeerMeasurement, Scenario } from "../scenario.js";
import { sampleRotating } from "../stats.js";
import { conv, messagesOf } from "./peers-postgres.js";

const SIZE = 5000;
const N = 20;

export const peersJson: Scenario = {
  id: "peers-json",
  title: "8. JSON store vs LangChain's file history",
  description: `Our JSON store against \`@langchain/community\`'s \`FileSystemChatMessageHistory\` (its file-based chat history), each holding one conversation of ${SIZE.toLocaleString("en-US")} messages (setup: ours by \`storeMessages\` in batches of 1,000, LangChain's file written in its own format), interleaved call by call: append one message (\`storeMessage\` — a journal line and an fdatasync; \`addMessage\` — the whole file rewritten, no fsync), then read the newest ${N} (\`getImmediateContext\`; \`getMessages()\` sliced). Same text, role, time and ids for both.`,
  adapters: ["json"],
  async run({ target, scale }) {
    await target.reset();
    const dir = await mkdtemp(join(tmpdir(), "ms-bench-langchain-file-"));
    const load = [loadavg()[0]!];
    const ours = oursAsPeer(
      () => target.store,
      "one journal line (our whole record) and an fdatasync per write; the main file rewritten only by compaction",
      async (records) => {
        for (let i = 0; i < records.length; i += 1000)
          await target.store.storeMessages(records.slice(i, i + 1000));
      },
    );
    const file = openLangChainFile(join(dir, "history.json"));
    const systems: PeerSystem[] = [ours as PeerSystem, file as PeerSystem];
    const rows: PeerMeasurement[] = [];
    const record = (label: string, samples: number[][]) =>
      rows.push(peerRow("json", label, systems, samples));
    try {
      // Ours needs its conversation before its messages; LangChain's history reads its file
      // once per process, so the file is written before its first call.
      await ours.createConversation(conv(ours as PeerSystem, "big"), "user-peers");
      for (const s of systems) await s.load(messagesOf(s, conv(s, "big"), SIZE));
      await file.createConversation(conv(file as PeerSystem, "big"), "user-peers");
      const appends = Math.max(30, Math.round(200 * scale));
      const append = await sampleRotating(appends, (i) =>
        systems.map((s) => {
          const [m] = messagesOf(s, conv(s, "big"), 1, SIZE + i) as Message[];
          return () => s.append(m);
        }),
      );
      record(`append one message at ${SIZE.toLocaleString("en-US")} messages`, append);
      const reads = Math.max(30, Math.round(200 * scale));
      const read = await sampleRotating(reads, () =>
        systems.map((s) => () => s.lastN(conv(s, "big"), N)),
      );
      record(`read the last ${N} at ${SIZE.toLocaleString("en-US")} messages`, read);
    } finally {
      load.push(loadavg()[0]!);
      await rm(dir, { recursive: true, force: true });
      await target.reset();
    }
    const ratio = rows[0]!.peers[0]!.stat.p50 / rows[0]!.ours.p50;
    return {
      measurements: [],
      peers: rows,
      targets: [
        {
          adapter: "json",
          target: `append ≥ 10× LangChain's file history at ${SIZE.toLocaleString("en-US")}`,
          value: `${ratio.toFixed(1)}×`,
          pass: ratio >= 10,
        },
      ],
      notes: [
        `json: load average (1 min) at the start / end of the scenario: ${load[0]!.toFixed(2)} / ${load[1]!.toFixed(2)}.`,
        ...systems.map((s) => `json: ${s.name} writes per message: ${s.writes}.`),
      ],
    };
  },
};
