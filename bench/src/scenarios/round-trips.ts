import type { MessageStore } from "@message-store/core";
import {
  BASE_TIME,
  conversationMessages,
  makeConversation,
  makeMessage,
  makeTrace,
  rng,
} from "../data.js";
import type { Measurement, Scenario, TargetCheck } from "../scenario.js";

type Kind = "read" | "write" | "batch write" | "cascade delete";

/** The calls counted, in order, on a conversation with 20 messages and a trace. */
function calls(store: MessageStore): [string, Kind, () => Promise<unknown>][] {
  const random = rng(3);
  const batch = conversationMessages("rt-b", "rt-c", "rt-u", 500, BASE_TIME + 2_000_000, random);
  const assistant = makeMessage("rt-a", "rt-c", "rt-u", 1, BASE_TIME + 1_000_000, random);
  return [
    [
      "storeConversation (update)",
      "write",
      () => store.storeConversation(makeConversation("rt-c", "rt-u", "rt-agent")),
    ],
    ["getConversation", "read", () => store.getConversation("rt-c")],
    [
      "getConversationsByUserId (limit 10)",
      "read",
      () => store.getConversationsByUserId("rt-u", { limit: 10 }),
    ],
    ["storeMessage", "write", () => store.storeMessage(assistant)],
    ["storeMessages (500)", "batch write", () => store.storeMessages(batch)],
    ["getMessage", "read", () => store.getMessage("rt-a")],
    [
      "getMessagesByConversationId (limit 50)",
      "read",
      () => store.getMessagesByConversationId("rt-c", { limit: 50 }),
    ],
    ["getImmediateContext(20)", "read", () => store.getImmediateContext("rt-c", 20)],
    ["flagMessage", "write", () => store.flagMessage("rt-b-000001")],
    [
      "storeTurnTrace",
      "write",
      () => store.storeTurnTrace(makeTrace("rt-t", assistant, "rt-agent", 1)),
    ],
    ["getTurnTraceByMessageId", "read", () => store.getTurnTraceByMessageId("rt-a")],
    [
      "getTurnTracesByAgentId (1 h)",
      "read",
      () =>
        store.getTurnTracesByAgentId("rt-agent", {
          since: BASE_TIME,
          until: BASE_TIME + 3_600_000,
        }),
    ],
    ["deleteConversation (cascade)", "cascade delete", () => store.deleteConversation("rt-c")],
  ];
}

export const roundTrips: Scenario = {
  id: "roundtrips",
  title: "0. Round trips per contract call",
  description:
    "Deterministic counts, not timings: a second store on the same server whose every round trip is recorded — Postgres: a `pg.Client` subclass logging every `query` on a caller-owned pool (as `packages/store-postgres/test/round-trips.test.ts` does); Mongo: the driver's command monitoring (`commandStarted`), as `packages/store-mongo/test/round-trips.test.ts` does. One call each, in order, on a conversation with 20 messages of history; every message is newer than the conversation's activity (the agent-loop case).",
  adapters: ["postgres", "mongo"],
  async run({ target }) {
    const counted = await target.openCounted!();
    const store = counted.store;
    try {
      await store.storeConversation(makeConversation("rt-c", "rt-u", "rt-agent"));
      await store.storeMessages(
        conversationMessages("rt-h", "rt-c", "rt-u", 20, BASE_TIME, rng(1)),
      );
      const measurements: Measurement[] = [];
      const targets: TargetCheck[] = [];
      const bad: string[] = [];
      for (const [name, kind, call] of calls(store)) {
        const trips = await counted.roundTrips(call);
        measurements.push({
          adapter: target.name,
          label: `${name} — ${kind}`,
          note: `**${trips.length}**: ${trips.map((t) => `\`${t}\``).join(", ")}`,
        });
        const limit = target.name === "postgres" ? 1 : kind === "read" ? 1 : 2;
        if (trips.length > limit) bad.push(`${name} (${trips.length})`);
      }
      targets.push({
        adapter: target.name,
        target:
          target.name === "postgres"
            ? "every contract call is one round trip"
            : "reads 1 round trip, writes at most 2",
        value: bad.length === 0 ? "all calls within" : `over: ${bad.join(", ")}`,
        pass: bad.length === 0,
      });
      return { measurements, targets, notes: [] };
    } finally {
      await counted.close();
    }
  },
};
