/** One observation of a differential scenario: a label and what the memory answered (or threw). */
export type Observation = [label: string, value: unknown];

/**
 * What a differential scenario saw, in order: a scenario runs once on a framework's own
 * reference memory and once on the bridge, and the two lists must be equal. Values are kept as
 * JSON would carry them (`undefined` properties dropped, `undefined` itself as the string
 * `"undefined"`), so in-memory values and values read back from a store compare by content; an
 * error is recorded by its class name and message.
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
