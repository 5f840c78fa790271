/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * `work`, failing with its name after `timeoutMs`: a test of several slow steps then says which
 * one did not finish instead of running into the test's own timeout.
 */
export async function within<T>(what: string, timeoutMs: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const started = Date.now();
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not finish in ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (Date.now() - started > timeoutMs / 2) console.log(`[slow step] ${what}: ${Date.now() - started} ms`);
  }
}
