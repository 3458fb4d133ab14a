import { BRIDGE_BACKENDS, useBridgeStore } from "@message-store/test-servers/bridge";
import { describe, expect, it } from "vitest";
import { MessageStoreSession } from "../src/index.js";
import { COMPACTION_SCENARIOS } from "./support/compaction-scenarios.js";
import { differential } from "./support/differential.js";
import { ITEM_SCENARIOS } from "./support/item-scenarios.js";
import { RUN_SCENARIOS } from "./support/run-scenarios.js";

const SCENARIOS = { ...ITEM_SCENARIOS, ...RUN_SCENARIOS, ...COMPACTION_SCENARIOS };

describe.each(BRIDGE_BACKENDS)(
  "MessageStoreSession against the SDK's MemorySession on %s",
  (backend) => {
    const ctx = useBridgeStore(backend);

    it.each(Object.entries(SCENARIOS))("%s", async (_name, scenario) => {
      const { reference, actual } = await differential(
        scenario,
        () =>
          new MessageStoreSession({
            store: ctx.store,
            userId: "u1",
            agentId: "agents-bot",
            model: "gpt-test",
          }),
      );
      expect(reference.length).toBeGreaterThan(2);
      expect(actual).toEqual(reference);
    });
  },
);
