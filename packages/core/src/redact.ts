/**
 * `scheme://user:password@host`. A password may hold `@`, `:` and whitespace (a URL parser takes
 * the LAST `@` of the authority, which ends at `/`, `?` or `#`), so it runs greedily to the last
 * `@` before one of those, the end of the line or the next `scheme://`. When unsure where it ends,
 * this hides too much (`postgres://u:***@example.com` for `u:pw@host, mail a@example.com`),
 * never too little.
 */
const URL_CREDENTIALS =
  /([a-z][a-z0-9+.-]*:\/\/)([^:/?#@\s]*):((?:(?![a-z][a-z0-9+.-]*:\/\/)[^/?#\r\n])*)@/gi;

/**
 * Key names that hold a secret, also at the end of longer names (`PGPASSWORD`, `db_password`,
 * `x-api-key`); `totalTokens` is a count, not a token.
 */
const SECRET_KEY = String.raw`[\w-]*?(?:password|passwd|pwd|secret|token|api[_-]?key)`;

/** `"password": "…"` in JSON: the whole string, escapes included. */
const JSON_STRING_VALUE = new RegExp(String.raw`("${SECRET_KEY}"\s*:\s*)"(?:\\.|[^"\\])*"`, "gi");

/**
 * `password=…`, `password: …`: a quoted value whole (`'p@ss w'`, `"p@ss w"`, backslash escapes
 * included), else up to whitespace, `&`, `;` or `,`.
 */
const KEY_VALUE = new RegExp(
  String.raw`\b(${SECRET_KEY})(\s*[=:]\s*)("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|[^\s&;,]+)`,
  "gi",
);

/**
 * Removes passwords from text that may contain a DSN, URI, `key=value` connection string or JSON:
 * `postgres://u:p@ss w@h/db` becomes `postgres://u:***@h/db`, `password='p@ss w'` becomes
 * `password=***`, `{"password":"p@ss w"}` becomes `{"password":"***"}`. Percent-encoded or not.
 * Never throws.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(URL_CREDENTIALS, "$1$2:***@")
    .replace(JSON_STRING_VALUE, '$1"***"')
    .replace(KEY_VALUE, "$1$2***");
}
