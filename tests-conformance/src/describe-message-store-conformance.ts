import { describe } from "vitest";
import { type ConformanceOptions, createHarness } from "./harness.js";
import { analyticsSuite } from "./suites/analytics.js";
import { badInputCorpusSuite } from "./suites/bad-input-corpus.js";
import { cascadeSuite } from "./suites/cascade.js";
import { compressionSuite } from "./suites/compression.js";
import { concurrencySuite } from "./suites/concurrency.js";
import { contextSuite } from "./suites/context.js";
import { conversationsSuite } from "./suites/conversations.js";
import { embeddingQueueSuite } from "./suites/embedding-queue.js";
import { erasureSuite } from "./suites/erasure.js";
import { integritySuite } from "./suites/integrity.js";
import { lifecycleSuite } from "./suites/lifecycle.js";
import { messagesSuite } from "./suites/messages.js";
import { orderingSuite } from "./suites/ordering.js";
import { ownershipSuite } from "./suites/ownership.js";
import { paginationSuite } from "./suites/pagination.js";
import { scopedViewSuite } from "./suites/scoped-view.js";
import { searchSuite } from "./suites/search.js";
import { sessionSuite } from "./suites/session.js";
import { softDeleteSuite } from "./suites/soft-delete.js";
import { tenantsSuite } from "./suites/tenants.js";
import { tracesSuite } from "./suites/traces.js";
import { validationSuite } from "./suites/validation.js";

/**
 * Registers the whole conformance suite for one adapter, as one vitest `describe` block named
 * `message-store conformance: <name>`. Call it once, at the top level of a test file.
 *
 * Before each test the suite calls `reset()` then `open()`; after each test it closes every store
 * it opened. Tests use only the public contract (`MessageStoreApi`, `close()`, `capabilities`,
 * `forUser`). Optional capabilities the adapter does not declare, and persistence tests when
 * `persistent` is `false`, are reported as skipped.
 *
 * @example
 * describeMessageStoreConformance({
 *   name: "my-adapter",
 *   open: () => MessageStore.initialize({ storage: "my-adapter", url }),
 *   reset: () => dropEverything(url),
 * });
 */
export function describeMessageStoreConformance(options: ConformanceOptions): void {
  describe(`message-store conformance: ${options.name}`, () => {
    const h = createHarness(options);
    conversationsSuite(h);
    messagesSuite(h);
    orderingSuite(h);
    contextSuite(h);
    paginationSuite(h);
    cascadeSuite(h);
    tracesSuite(h);
    integritySuite(h);
    validationSuite(h);
    badInputCorpusSuite(h);
    concurrencySuite(h);
    lifecycleSuite(h);
    scopedViewSuite(h);
    analyticsSuite(h);
    erasureSuite(h);
    searchSuite(h);
    compressionSuite(h);
    // Issue #15: cases an adapter without `softDelete`, `tenants` or `embeddingQueue` skips.
    softDeleteSuite(h);
    tenantsSuite(h);
    ownershipSuite(h);
    sessionSuite(h);
    embeddingQueueSuite(h);
  });
}
