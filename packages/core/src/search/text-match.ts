/**
 * The text matching of `searchConversations`, the reference every adapter agrees with: a
 * substring test after mapping the 26 ASCII capitals `A`–`Z` to `a`–`z` in both strings, and
 * nothing else: no Unicode case folding (`É` does not match `é`), no normalization, whitespace
 * as given. Only ASCII folding gives the same answer on every backend: PostgreSQL's `lower()`
 * follows the database's collation (under `C` it folds ASCII only), MongoDB's `$toLower` and
 * regular expressions differ again.
 */

const ASCII_CAPITALS = /[A-Z]/g;

/** `text` with `A`–`Z` mapped to `a`–`z`, every other character kept. */
export function foldAscii(text: string): string {
  return text.replace(ASCII_CAPITALS, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

/**
 * Whether `haystack` contains `folded` (a needle already passed through {@link foldAscii}),
 * comparing ASCII letters case-insensitively. `null` (a conversation without a title) never
 * matches.
 */
export function containsFolded(haystack: string | null, folded: string): boolean {
  return haystack !== null && foldAscii(haystack).includes(folded);
}
