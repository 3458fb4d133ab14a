/**
 * Control characters other than newline and tab (NUL, ESC, …) replaced by their visible Unicode
 * pictures (U+2400 block), so stored text cannot garble or drive the terminal it is printed on.
 */
export function visible(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) =>
    c === "\u007f" ? "\u2421" : String.fromCharCode(0x2400 + c.charCodeAt(0)),
  );
}
