import { BASE_TIME, conversationMessages, makeConversation, makeTrace, rng } from "../data.js";
import type { Scenario } from "../scenario.js";
import { summarize, timed } from "../stats.js";

export const deleteConversation: Scenario = {
  id: "delete",
  title: "5. deleteConversation",
  description:
    "`deleteConversation` of a conversation holding 5,000 messages and 2,500 traces (one per assistant message), in the store as the previous scenarios left it (the big store). Each repetition seeds one such conversation for ours and one for raw (setup, not timed), then deletes both, alternating which goes first. Raw minimum: Postgres — `DELETE FROM conversations WHERE id = $1` (the foreign keys cascade, as the adapter's do); Mongo — `deleteMany` traces, `deleteMany` messages, `deleteOne` conversation, no transaction; JSON — one appended+fdatasync'ed line and dropping the in-memory array.",
  adapters: ["postgres", "mongo", "json"],
  async run({ target, progress, limits }) {
    if (limits.freshStoreForDelete) await target.reset();
    const size = limits.deleteMessages;
    const reps = 10;
    const ours: number[] = [];
    const raw: number[] = [];
    const task = progress.task(`${target.name}: delete ${size}-message conversations`, reps);
    for (let r = 0; r < reps; r++) {
      const ids = { ours: `del-ours-${r}`, raw: `del-raw-${r}` };
      // Seed and delete in alternating order, so neither side always has the fresher rows.
      const sides = r % 2 === 0 ? (["ours", "raw"] as const) : (["raw", "ours"] as const);
      for (const side of sides) {
        const id = ids[side];
        const messages = conversationMessages(id, id, "user-del", size, BASE_TIME, rng(r));
        const traces = messages
          .filter((m) => m.role === "assistant")
          .map((m, k) => makeTrace(`${id}-t-${k}`, m, "agent-del", k));
        await target.seed(side, makeConversation(id, "user-del", "agent-del"), messages, traces);
      }
      const runOurs = async () =>
        ours.push(await timed(() => target.store.deleteConversation(ids.ours)));
      const runRaw = async () =>
        raw.push(await timed(() => target.raw.deleteConversation(ids.raw)));
      if (r % 2 === 0) {
        await runOurs();
        await runRaw();
      } else {
        await runRaw();
        await runOurs();
      }
      task.tick();
    }
    task.done();
    const o = summarize(ours);
    const w = summarize(raw);
    return {
      measurements: [
        {
          adapter: target.name,
          label: `deleteConversation (${size.toLocaleString("en-US")} messages, ${(size / 2).toLocaleString("en-US")} traces), ${reps} repetitions`,
          ours: o,
          raw: w,
          ratio: o.p50 / w.p50,
        },
      ],
      targets: [],
      notes: [],
    };
  },
};
