import { v7 } from "uuid";

/**
 * Returns a new UUID v7. Ids made by one process are strictly increasing as strings, so they
 * sort by creation time. Never throws.
 */
export function newId(): string {
  return v7();
}
