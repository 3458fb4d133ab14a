import type { StoreCapabilities } from "@message-store/core";
import { describe, it } from "vitest";
import { requireCapabilities } from "../capabilities.js";
import { CONTRACT_CASES } from "../cases/index.js";
import type { Harness } from "../harness.js";

/**
 * The cases of issue #13: each pins one rule of `MessageStoreApi`'s TSDoc that an adapter broke
 * while passing the older suites, and fails with `[rule] <rule>` and the field that differs.
 */
export function contractRulesSuite(h: Harness): void {
  describe("contract rules", () => {
    for (const c of CONTRACT_CASES) {
      it(`${c.title} [${c.id}]`, async (ctx) => {
        const known = h.options.knownViolations?.[c.id];
        if (known !== undefined) ctx.skip(`KNOWN VIOLATION of "${c.rule}": ${known}`);
        const requires = c.requires ?? [];
        if (requires.includes("persistent") && !h.persistent) {
          ctx.skip(`${h.name} is not persistent (persistent: false)`);
        }
        if (requires.includes("inspect") && !h.options.inspect) {
          ctx.skip(`${h.name} passes no inspect() hook`);
        }
        requireCapabilities(
          h,
          ctx,
          ...requires.filter(
            (r): r is keyof StoreCapabilities => r !== "persistent" && r !== "inspect",
          ),
        );
        await c.run(h.caseContext());
      });
    }
  });
}
