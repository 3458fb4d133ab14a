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
      it(c.title, async (ctx) => {
        requireCapabilities(h, ctx, ...(c.requires ?? []));
        await c.run(h.caseContext());
      });
    }
  });
}
