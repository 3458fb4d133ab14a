import { describe, expect, it } from "vitest";
import { cosineSimilarity } from "../../src/adapter.js";

describe("cosineSimilarity", () => {
  it.each([
    [[1, 0], [0, 1], 0],
    [[3, 4], [4, 3], 0.96],
    [[1, 2, 3], [2, 4, 6], 1],
    [[1, 2, 3], [-1, -2, -3], -1],
    [[0, 0], [1, 1], 0],
    [[1, 1], [0, 0], 0],
    [[2], [5], 1],
  ])("cos(%j, %j) = %d", (a, b, expected) => {
    expect(cosineSimilarity(a, b)).toBeCloseTo(expected, 12);
  });

  it("returns null for vectors of different lengths", () => {
    expect(cosineSimilarity([1, 2], [1, 2, 3])).toBeNull();
  });

  // Embeddings accept any finite float64, so the norms must not overflow or underflow.
  it.each([
    [[1e-160, 0], [1e-160, 0], 1],
    [[1e200, 0], [1e200, 0], 1],
    [[1e200, 1e200], [1e200, -1e200], 0],
    [[-1e300], [1e300], -1],
  ])(
    "stays finite in [-1, 1] for extreme but valid components: cos(%j, %j) = %d",
    (a, b, expected) => {
      const v = cosineSimilarity(a, b);
      expect(Number.isFinite(v)).toBe(true);
      expect(v!).toBeCloseTo(expected, 12);
    },
  );
});
