import { BRIDGE_BACKENDS, useBridgeStore } from "@message-store/test-servers/bridge";
import { describe, expect, it } from "vitest";
import { MessageStoreChatMessageHistory } from "../src/index.js";
import { differential } from "./support/differential.js";
import { SCENARIOS } from "./support/scenarios.js";

describe.each(BRIDGE_BACKENDS)(
  "MessageStoreChatMessageHistory against LangChain's InMemoryChatMessageHistory on %s",
  (backend) => {
    const ctx = useBridgeStore(backend);

    it.each(Object.entries(SCENARIOS))("%s", async (_name, scenario) => {
      const prefix = crypto.randomUUID();
      const { reference, actual } = await differential(
        scenario,
        (sessionId) =>
          new MessageStoreChatMessageHistory({
            store: ctx.store,
            sessionId: `${prefix}-${sessionId}`,
            userId: "u1",
            agentId: "lc-bot",
          }),
      );
      expect(reference.length).toBeGreaterThan(2);
      expect(actual).toEqual(reference);
    });
  },
);
