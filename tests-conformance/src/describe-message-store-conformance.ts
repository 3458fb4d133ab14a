import { describe, it } from "vitest";
import { type ConformanceOptions, createHarness, type Harness } from "./harness.js";
import { analyticsSuite } from "./suites/analytics.js";
import { badInputCorpusSuite } from "./suites/bad-input-corpus.js";
import { cascadeSuite } from "./suites/cascade.js";
import { checkpointsSuite } from "./suites/checkpoints.js";
import { compressionSuite } from "./suites/compression.js";
import { concurrencySuite } from "./suites/concurrency.js";
import { contextSuite } from "./suites/context.js";
import { contractRulesSuite } from "./suites/contract-rules.js";
import { conversationsSuite } from "./suites/conversations.js";
import { embeddingQueueSuite } from "./suites/embedding-queue.js";
import { erasureSuite } from "./suites/erasure.js";
import { integritySuite } from "./suites/integrity.js";
import { lifecycleSuite } from "./suites/lifecycle.js";
import { messagesSuite } from "./suites/messages.js";
import { modelBasedSuite } from "./suites/model-based.js";
import { orderingSuite } from "./suites/ordering.js";
import { ownershipSuite } from "./suites/ownership.js";
import { paginationSuite } from "./suites/pagination.js";
import { scopedViewSuite } from "./suites/scoped-view.js";
import { searchSuite } from "./suites/search.js";
import { sessionSuite } from "./suites/session.js";
import { softDeleteSuite } from "./suites/soft-delete.js";
import { tenantsSuite } from "./suites/tenants.js";
import { textSearchSuite } from "./suites/text-search.js";
import { traceBatchSuite } from "./suites/trace-batch.js";
import { tracesSuite } from "./suites/traces.js";
import { validationSuite } from "./suites/validation.js";

/**
 * Every suite by name, in run order: the names `only`/`skip` (and the environment variables
 * `MESSAGE_STORE_CONFORMANCE_ONLY` / `MESSAGE_STORE_CONFORMANCE_SKIP`) accept.
 */
const SUITES = {
  conversations: conversationsSuite,
  messages: messagesSuite,
  ordering: orderingSuite,
  context: contextSuite,
  pagination: paginationSuite,
  cascade: cascadeSuite,
  traces: tracesSuite,
  "trace-batch": traceBatchSuite,
  integrity: integritySuite,
  validation: validationSuite,
  "bad-input": badInputCorpusSuite,
  concurrency: concurrencySuite,
  lifecycle: lifecycleSuite,
  "scoped-view": scopedViewSuite,
  analytics: analyticsSuite,
  erasure: erasureSuite,
  search: searchSuite,
  compression: compressionSuite,
  "contract-rules": contractRulesSuite,
  "model-based": modelBasedSuite,
  // Issue #15: cases an adapter without `softDelete`, `tenants` or `embeddingQueue` skips.
  "soft-delete": softDeleteSuite,
  tenants: tenantsSuite,
  ownership: ownershipSuite,
  session: sessionSuite,
  "embedding-queue": embeddingQueueSuite,
  // Issue #19: skipped unless the adapter declares `textSearch`.
  "text-search": textSearchSuite,
  // Issue #28: skipped unless the adapter declares `checkpoints`.
  checkpoints: checkpointsSuite,
} satisfies Record<string, (h: Harness) => void>;

/** The suite names, in run order. */
export const SUITE_NAMES = Object.keys(SUITES) as readonly (keyof typeof SUITES)[];

function fromEnv(name: string): string[] {
  return (process.env[name] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Which suites run, from the options and the environment; unknown names are an error. */
export function selectSuites(options: Pick<ConformanceOptions, "only" | "skip">): {
  run: string[];
  skipped: string[];
} {
  const only = [...(options.only ?? []), ...fromEnv("MESSAGE_STORE_CONFORMANCE_ONLY")];
  const skip = [...(options.skip ?? []), ...fromEnv("MESSAGE_STORE_CONFORMANCE_SKIP")];
  const unknown = [...only, ...skip].filter((n) => !(SUITE_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new Error(
      `message-store conformance: unknown suite name(s) ${unknown.join(", ")}; known: ${SUITE_NAMES.join(", ")}`,
    );
  }
  const run = SUITE_NAMES.filter(
    (n) => (only.length === 0 || only.includes(n)) && !skip.includes(n),
  );
  return { run, skipped: SUITE_NAMES.filter((n) => !run.includes(n)) };
}

/**
 * Registers the whole conformance suite for one adapter, as one vitest `describe` block named
 * `message-store conformance: <name>`. Call it once, at the top level of a test file.
 *
 * Before each test the suite calls `reset()` then `open()`; after each test it closes every store
 * it opened. Tests use only the public contract (`MessageStoreApi`, `close()`, `capabilities`,
 * `forUser`). Optional capabilities the adapter does not declare, and persistence tests when
 * `persistent` is `false`, are reported as skipped; so are suites left out by `only`/`skip`
 * (one skipped test per suite, named after it, and a line on the console).
 *
 * @example
 * describeMessageStoreConformance({
 *   name: "my-adapter",
 *   open: () => MessageStore.initialize({ storage: "my-adapter", url }),
 *   reset: () => dropEverything(url),
 * });
 */
export function describeMessageStoreConformance(options: ConformanceOptions): void {
  const { run, skipped } = selectSuites(options);
  if (skipped.length > 0) {
    console.info(
      `message-store conformance: ${options.name}: skipping suites ${skipped.join(", ")}`,
    );
  }
  describe(`message-store conformance: ${options.name}`, () => {
    const h = createHarness(options);
    for (const name of run) SUITES[name as keyof typeof SUITES](h);
    for (const name of skipped) {
      describe(name, () => {
        it.skip(`suite "${name}" skipped by only/skip options or MESSAGE_STORE_CONFORMANCE_ONLY/_SKIP`, () => {});
      });
    }
  });
}
