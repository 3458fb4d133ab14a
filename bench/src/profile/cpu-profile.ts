import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";

/**
 * Records a V8 CPU profile of `work` only (not of the setup around it), in the `.cpuprofile`
 * format `node --cpu-prof` writes, so the same tools (Chrome DevTools, `top-frames`) read it.
 */
export async function profileToFile(
  path: string,
  work: () => Promise<void>,
  samplingIntervalUs = 100,
): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: samplingIntervalUs });
  await session.post("Profiler.start");
  try {
    await work();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(path, JSON.stringify(profile));
    session.disconnect();
  }
}
