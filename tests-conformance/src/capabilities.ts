import type { StoreCapabilities } from "@message-store/core";
import type { TestContext } from "vitest";
import type { Harness } from "./harness.js";

/** A capability the suite skips cases for (visibly) when an adapter does not declare it. */
export type OptionalCapability = Exclude<keyof StoreCapabilities, "semanticSearch">;

/** Skips the running case, saying why, unless the adapter declares every one of `flags`. */
export function requireCapabilities(
  h: Harness,
  ctx: TestContext,
  ...flags: (OptionalCapability | "semanticSearch")[]
): void {
  const missing = flags.filter((flag) => h.store.capabilities[flag] !== true);
  if (missing.length > 0) {
    ctx.skip(`${h.name} does not declare ${missing.map((f) => `capabilities.${f}`).join(", ")}`);
  }
}
