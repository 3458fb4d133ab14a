import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiError, TranscriptPage } from "../../src/studio/api-types.js";
import { tempDir } from "../support/cli.js";
import {
  apiCall as call,
  apiJson as json,
  type RunningStudio,
  STUDIO_BACKENDS,
  type StudioPair,
  startStudioPair,
} from "../support/studio.js";
import { REFUND } from "../support/studio-seed.js";

const PASSWORD = "s3cret-studio-access-pw";

/** Status of a request with a chosen Host header (fetch cannot set one). */
function statusWithHost(studio: RunningStudio, host: string): Promise<number> {
  const url = new URL(studio.origin);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: "/api/info",
        headers: { Host: host, Authorization: `Bearer ${studio.token}` },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/**
 * Who may talk to the studio: the token (as a header only), the Host, cross-site writes. The
 * browser's side of it (another local server visited by the same browser) is in
 * `test-browser/studio-one-turn-store.browser.test.ts`.
 */
describe.each(STUDIO_BACKENDS)("studio access on $name", (backend) => {
  const tmp = tempDir();
  let readOnly: RunningStudio;
  let writable: RunningStudio;
  let pair: StudioPair | undefined;

  beforeAll(async () => {
    pair = await startStudioPair(backend.storage, tmp.dir, {
      prefix: "studio_access",
      password: PASSWORD,
    });
    ({ readOnly, writable } = pair);
  });
  afterAll(async () => {
    await pair?.stop();
    tmp.remove();
  });

  it("refuses every API request without the token, or with another studio's", async () => {
    for (const path of ["/api/info", "/api/conversations", "/api/usage", "/api/nope"]) {
      expect((await call(readOnly, path, { auth: false })).status, path).toBe(401);
    }
    const wrong = await fetch(`${readOnly.origin}/api/info`, {
      headers: { Authorization: `Bearer ${writable.token}` },
    });
    expect(wrong.status).toBe(401);
    const body = (await (await call(readOnly, "/api/info", { auth: false })).json()) as ApiError;
    expect(body.error.code).toBe("UNAUTHORIZED");
  });

  it("takes the token only as a header: a cookie or query token (what any port sees) is refused", async () => {
    const port = new URL(readOnly.origin).port;
    // The page load sets no cookie: a cookie would go to every other server on 127.0.0.1.
    const page = await fetch(`${readOnly.origin}/`, { redirect: "manual" });
    expect(page.status).toBe(200);
    expect(page.headers.get("set-cookie")).toBeNull();
    expect(await page.text()).toContain('<div id="root">');
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    // A value captured by a server on another local port, replayed: the earlier cookie, any name.
    for (const cookie of [
      `message_store_studio_${port}=${readOnly.token}`,
      `message_store_studio=${readOnly.token}`,
      `token=${readOnly.token}`,
    ]) {
      const replayed = await fetch(`${readOnly.origin}/api/conversations`, {
        headers: { Cookie: cookie },
      });
      expect(replayed.status, cookie).toBe(401);
    }
    const query = await fetch(`${readOnly.origin}/api/conversations?token=${readOnly.token}`);
    expect(query.status).toBe(401);
  });

  it("serves the page and its assets without the token: they hold no data", async () => {
    for (const path of ["/", "/usage", "/conversations/x"]) {
      const response = await call(readOnly, path, { auth: false });
      expect(response.status, path).toBe(200);
      expect(await response.text()).not.toContain(PASSWORD);
    }
  });

  it("answers only to loopback host names (DNS rebinding)", async () => {
    expect(await statusWithHost(readOnly, "evil.example:80")).toBe(403);
    expect(await statusWithHost(readOnly, `localhost:${new URL(readOnly.origin).port}`)).toBe(200);
  });

  it("writes allowed: a cross-site form POST is refused (CSRF), and only JSON is accepted", async () => {
    const auth = `Bearer ${writable.token}`;
    const path = `${writable.origin}/api/actions/messages/${REFUND.toFlagId}/flag`;
    const forged = await fetch(path, {
      method: "POST",
      headers: {
        Authorization: auth,
        Origin: "http://evil.example",
        "Sec-Fetch-Site": "cross-site",
        "Content-Type": "text/plain",
      },
      body: JSON.stringify({ flagged: true }),
    });
    expect(forged.status).toBe(403);
    const notJson = await fetch(path, {
      method: "POST",
      headers: { Authorization: auth, "Content-Type": "application/xml" },
      body: JSON.stringify({ flagged: true }),
    });
    expect(notJson.status).toBe(415);
    const page = await json<TranscriptPage>(
      writable,
      `/api/conversations/${REFUND.conversationId}/messages`,
    );
    expect(page.items.find((m) => m.id === REFUND.toFlagId)?.isFlagged).toBe(false);
  });
});
