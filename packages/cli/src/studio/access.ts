import { randomBytes, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";

/** A fresh random token for the printed URL (192 bits, URL-safe). */
export function newToken(): string {
  return randomBytes(24).toString("base64url");
}

function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The hosts the studio answers to: loopback names only, so a DNS-rebinding page is refused. */
const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost"]);

function hostnameOf(host: string | undefined): string | null {
  if (host === undefined) return null;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
}

function refuse(status: 401 | 403, code: string, message: string, api: boolean): Response {
  return api
    ? Response.json({ error: { code, message } }, { status })
    : new Response(`${message}\n`, {
        status,
        headers: { "Content-Type": "text/plain; charset=utf-8" },
      });
}

/**
 * Every request must name 127.0.0.1 or localhost as its `Host` (else 403), and every API request
 * must carry the token as `Authorization: Bearer <token>` (else 401).
 *
 * No cookie and no query parameter carry it: browsers send a cookie to every port of a host, so
 * any other server on 127.0.0.1 would receive it. The printed URL holds the token in its fragment
 * (`/#token=…`), which never leaves the browser; the page keeps it in its origin's storage, which
 * is bound to the port, and sends it as the header. The page and its assets hold no data: they
 * are served without the token.
 */
export function requireToken(token: string): MiddlewareHandler {
  return async (c, next) => {
    const api = c.req.path.startsWith("/api/");
    if (!LOCAL_HOSTS.has(hostnameOf(c.req.header("host")) ?? "")) {
      return refuse(403, "FORBIDDEN_HOST", "the studio answers on 127.0.0.1 only", api);
    }
    if (!api) return next();
    const bearer = /^Bearer (.+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (sameToken(bearer, token)) return next();
    return refuse(
      401,
      "UNAUTHORIZED",
      "open the URL that `message-store studio` printed: it carries the access token",
      api,
    );
  };
}

/** Refuses (403) every request under it unless the studio was started with `--allow-writes`. */
export function requireWrites(allowWrites: boolean): MiddlewareHandler {
  return async (_c, next) => {
    if (allowWrites) return next();
    return refuse(
      403,
      "READ_ONLY",
      "the studio is read-only: start it with --allow-writes to flag messages or export",
      true,
    );
  };
}
