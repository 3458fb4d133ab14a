import { MemorySession, type Session } from "@openai/agents";

/** One observation of a scenario: a label and what the session answered (or threw). */
export type Observation = [label: string, value: unknown];

/**
 * What a scenario saw, in order. Values are kept as JSON would carry them (`undefined`
 * properties dropped), so that the SDK's in-memory items and items read back from a store
 * compare by content; an error is recorded by class name and message.
 */
export class Observations {
  readonly list: Observation[] = [];

  record(label: string, value: unknown): void {
    this.list.push([label, value === undefined ? "undefined" : JSON.parse(JSON.stringify(value))]);
  }

  /** Records what `action` resolves to, or the error it rejects with. */
  async attempt(label: string, action: () => Promise<unknown>): Promise<void> {
    try {
      this.record(label, await action());
    } catch (error) {
      const { name, message } = error as Error;
      this.record(label, { error: (error as object).constructor?.name ?? name, message });
    }
  }
}

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
