/** Where the page keeps the access token: its origin's storage, which is bound to the port. */
const KEY = "message-store-studio-token";

/**
 * Moves the token of the printed URL (`/#token=…`, a fragment the browser never sends) into
 * storage and drops it from the address. Runs once, before the first request.
 */
export function adoptTokenFromUrl(): void {
  const match = /(?:^#|&)token=([^&]*)/.exec(window.location.hash);
  if (!match) return;
  window.localStorage.setItem(KEY, decodeURIComponent(match[1]!));
  window.history.replaceState(null, "", `${window.location.pathname}${window.location.search}`);
}

/** The `Authorization` header every API request carries (none before a token was given). */
export function authorization(): Record<string, string> {
  const token = window.localStorage.getItem(KEY);
  return token === null ? {} : { Authorization: `Bearer ${token}` };
}
