/**
 * Runs `begin` (a `BEGIN IMMEDIATE`), retrying while another connection holds the write lock
 * (`SQLITE_BUSY`) until `timeoutMs` passed, with pauses from 1 ms doubling up to 50 ms. The
 * libraries' own busy handler waits synchronously, blocking the event loop: another connection
 * of this process that holds the lock across an await could then never commit.
 */
export async function waitForLock(begin: () => unknown, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    try {
      await begin();
      return;
    } catch (error) {
      const busy = String((error as { code?: unknown }).code ?? "").startsWith("SQLITE_BUSY");
      const left = deadline - Date.now();
      if (!busy || left <= 0) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
    }
  }
}
