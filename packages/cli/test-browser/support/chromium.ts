import { existsSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";

/** Debian's `chromium` package; `CHROMIUM_PATH` overrides. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const HAS_CHROMIUM = existsSync(CHROMIUM);
if (!HAS_CHROMIUM) {
  console.log(
    `studio browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`,
  );
}

/** Headless Chromium as the browser tests run it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
}

/** Another local server (another app on 127.0.0.1): records every request it receives. */
export interface OtherLocalServer {
  origin: string;
  requests: { url: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export async function startOtherLocalServer(): Promise<OtherLocalServer> {
  const requests: OtherLocalServer["requests"] = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? "", headers: req.headers });
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>another app</title><p>another app</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
