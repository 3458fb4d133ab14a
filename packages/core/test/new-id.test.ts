import { describe, expect, it } from "vitest";
import { newId } from "../src/index.js";

describe("newId", () => {
  it("returns UUID v7 strings", () => {
    const id = newId();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("10 000 ids are unique and strictly increasing as strings", () => {
    const ids = Array.from({ length: 10_000 }, () => newId());
    for (let i = 1; i < ids.length; i++) {
      expect(ids[i]! > ids[i - 1]!, `${ids[i - 1]} < ${ids[i]}`).toBe(true);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
});
