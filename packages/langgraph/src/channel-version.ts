/**
 * The version after `current`: the next whole number plus a random fraction (`4.7390…` after
 * `3.1185…`). Versions keep increasing, as LangGraph needs; the fraction makes two branches
 * forked from one checkpoint write different versions of a channel, so a value stored once per
 * version is never shared by two different values. (LangGraph's Python savers do the same with
 * strings; numbers keep the saver a `BaseCheckpointSaver<number>`, which `compile()` takes.)
 */
export function nextVersion(current: number | string | undefined): number {
  const count = current === undefined ? 0 : Math.floor(Number.parseFloat(String(current))) || 0;
  return count + 1 + Math.random();
}
