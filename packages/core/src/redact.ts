const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/)([^:/?#@\s]*):([^@/?#\s]*)@/gi;
const KEY_VALUE =
  /\b(password|passwd|pwd|secret|token|api[_-]?key)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s&;,]+)/gi;

/**
 * Removes passwords from text that may contain a DSN, URI or `key=value` connection string:
 * `postgres://u:pw@h` becomes `postgres://u:***@h`, `password=pw` becomes `password=***`.
 * Never throws.
 */
export function redactSecrets(text: string): string {
  return text.replace(URL_CREDENTIALS, "$1$2:***@").replace(KEY_VALUE, "$1$2***");
}
