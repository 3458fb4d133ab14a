import { type Observation, Observations } from "@message-store/test-servers/bridge";
import { MemorySession, type Session } from "@openai/agents";

/**
 * A scenario: what a program does with a session, recording what it observes. It is run twice,
 * once on the SDK's `MemorySession` and once on the session under test, and must build every
 * agent and model it uses itself (scripted models are consumed by a run).
 */
export type Scenario = (session: Session, seen: Observations) => Promise<void>;

/** Runs `scenario` on a fresh `MemorySession` and on `ours()`; resolves to both observations. */
export async function differential(
  scenario: Scenario,
  ours: () => Session,
): Promise<{ reference: Observation[]; actual: Observation[] }> {
  const reference = new Observations();
  await scenario(new MemorySession(), reference);
  const actual = new Observations();
  await scenario(ours(), actual);
  return { reference: reference.list, actual: actual.list };
}
