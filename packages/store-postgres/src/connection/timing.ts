/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `promise`'s value, or `"late"` if it has not settled within `ms` (the timer is cleared either way). */
export async function within<T>(promise: Promise<T>, ms: number | null): Promise<T | "late"> {
  if (ms === null) return promise;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(resolve, ms, "late");
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
