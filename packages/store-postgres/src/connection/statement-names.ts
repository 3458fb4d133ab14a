import { createHash } from "node:crypto";

/**
 * Names for the store's statements, so that `pg` sends them as named prepared statements: each
 * connection parses and plans a statement once (`pg` remembers per connection which names it
 * prepared), and later calls send only Bind/Execute. On the flip query of `getImmediateContext`
 * planning was most of the server's time (see bench/FINDINGS.md, "vs peers").
 *
 * The store's fixed statements are a few dozen texts; filtered lists and searches are assembled
 * from fragments, so their texts vary with the filter. Names are handed out to the first
 * {@link MAX_NAMED} distinct texts only, so that neither this map nor the server's per-connection
 * statement cache grows without bound; any text beyond that runs unnamed, as before.
 */
export const MAX_NAMED = 256;

/**
 * A name derived from the text itself: stores on different schemas may share a caller's pool,
 * and `pg` refuses one name for two texts on a connection.
 */
function nameFor(text: string): string {
  return `ms_${createHash("sha256").update(text).digest("base64url").slice(0, 27)}`;
}

export class StatementNames {
  readonly #names = new Map<string, string>();

  /** The name of `text`, or `undefined` when it runs unnamed. */
  nameOf(text: string): string | undefined {
    let name = this.#names.get(text);
    if (name === undefined && this.#names.size < MAX_NAMED) {
      name = nameFor(text);
      this.#names.set(text, name);
    }
    return name;
  }
}
