import type { CorpusCase } from "./corpus-case.js";
import { JSON_CASES } from "./json-cases.js";
import { MODEL_CASES } from "./model-cases.js";
import { OPERATOR_ID_CASES } from "./operator-id-cases.js";
import { ROUND_TRIP_CASES } from "./round-trip-cases.js";

/**
 * The bad-input corpus: every hostile or malformed input the suite throws at an adapter.
 * To extend it, add a `rejects(…)` or `roundTrips(…)` entry to one of these tables.
 */
export const BAD_INPUT_CORPUS: readonly CorpusCase[] = [
  ...MODEL_CASES,
  ...JSON_CASES,
  ...OPERATOR_ID_CASES,
  ...ROUND_TRIP_CASES,
];
