import { randomBytes, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";

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
 * Every request must carry the token: as `?token=` (the printed URL), as the cookie a page load
 * with `?token=` sets (HttpOnly, SameSite=Strict), or as `Authorization: Bearer <token>`.
 * A page load with a valid `?token=` is redirected to the same URL without it. Anything else is
 * 401; a `Host` other than 127.0.0.1 / localhost is 403.
 */
export function requireToken(token: string, cookieName: string): MiddlewareHandler {
  return async (c, next) => {
    const api = c.req.path.startsWith("/api/");
    if (!LOCAL_HOSTS.has(hostnameOf(c.req.header("host")) ?? "")) {
      return refuse(403, "FORBIDDEN_HOST", "the studio answers on 127.0.0.1 only", api);
    }
    const fromQuery = c.req.query("token");
    const bearer = /^Bearer (.+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (sameToken(fromQuery, token)) {
      setCookie(c, cookieName, token, { httpOnly: true, sameSite: "Strict", path: "/" });
      if (!api && c.req.method === "GET") {
        const url = new URL(c.req.url);
        url.searchParams.delete("token");
        return c.redirect(`${url.pathname}${url.search}`, 303);
      }
      return next();
    }
    if (sameToken(bearer, token) || sameToken(getCookie(c, cookieName), token)) return next();
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
