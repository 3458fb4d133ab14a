/**
 * The id as a string whose order is the id's code-point order under any string comparison.
 *
 * The contract breaks ties by id in code-point order. MongoDB compares strings by UTF-8 bytes,
 * which is that order, but MongoDB-compatible servers need not: jongodb (and anything comparing
 * UTF-16 code units, as Java and JavaScript do) puts U+1F600 before U+FFFD. For characters below
 * U+D800 the UTF-8, UTF-16 and code-point orders coincide, so the key keeps code points below
 * U+D000 as they are and writes every other one as two characters in U+D000–U+D205 and
 * U+0800–U+0FFF (order-preserving and prefix-free). Conversations and traces store it as
 * `idKey`; sorts and cursors use it, so the order is the same on every server.
 */
export function idKey(id: string): string {
  let out = "";
  for (const ch of id) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0xd000) {
      out += ch;
    } else {
      const v = cp - 0xd000;
      out += String.fromCharCode(0xd000 + (v >> 11), 0x800 + (v & 0x7ff));
    }
  }
  return out;
}
