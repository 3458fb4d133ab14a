import { useBridgeStore } from "@message-store/test-servers/bridge";
import { describe, expect, it } from "vitest";
import { BACKENDS } from "./support/ai-major.js";
import { bridgeMemories, differential } from "./support/differential.js";
import { CHAT_SCENARIOS, MODEL_SCENARIOS, TOOLS } from "./support/scenarios.js";

const SCENARIOS = { ...CHAT_SCENARIOS, ...MODEL_SCENARIOS };

describe.each(BACKENDS)(
  "the bridge against the AI SDK guide's chat store and an in-memory message list on %s",
  (backend) => {
    const ctx = useBridgeStore(backend);

    it.each(Object.entries(SCENARIOS))("%s", async (_name, scenario) => {
      const { reference, actual } = await differential(scenario, () =>
        bridgeMemories(ctx.store, TOOLS),
      );
      expect(reference.length).toBeGreaterThan(0);
      expect(actual).toEqual(reference);
    });
  },
);
