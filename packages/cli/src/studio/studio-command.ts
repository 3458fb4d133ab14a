import { once } from "node:events";
import type { Server } from "node:http";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { DEFAULT_KEEP_CHARS, DEFAULT_MAX_CHARS } from "@message-store/core";
import { openStore } from "../open-store.js";
import { writeLine } from "../output.js";
import { describeStore, type StoreConfigObject } from "../store-spec.js";
import { newToken } from "./access.js";
import type { StudioInfo } from "./api-types.js";
import { createStudioApp } from "./studio-app.js";

/** The only address the studio listens on. */
export const STUDIO_HOST = "127.0.0.1";

export interface StudioOptions {
  /** 0: any free port. */
  port: number;
  allowWrites: boolean;
  version: string;
  /** Resolves when the server should stop (default: SIGINT or SIGTERM). */
  stopped?: Promise<unknown>;
}

function untilSignal(): Promise<unknown> {
  return Promise.race([once(process, "SIGINT"), once(process, "SIGTERM")]);
}

/**
 * `message-store studio`: opens the store, serves the studio on 127.0.0.1 and prints its URL
 * (with the access token) on standard output; stops on Ctrl-C / SIGTERM and closes the store.
 */
export async function studioCommand(
  config: StoreConfigObject,
  options: StudioOptions,
  io: { stdout: NodeJS.WritableStream },
): Promise<void> {
  // Listen for the stop signal before anything is printed, so a prompt Ctrl-C is not lost.
  const stopped = options.stopped ?? untilSignal();
  const store = await openStore(config, { create: false });
  try {
    const token = newToken();
    const info: StudioInfo = {
      version: options.version,
      store: describeStore(config),
      storage: config.storage,
      semanticSearch: store.capabilities.semanticSearch,
      allowWrites: options.allowWrites,
      features: {
        textSearch: store.capabilities.textSearch === true,
        softDelete: store.capabilities.softDelete === true,
      },
      compressDefaults: { maxChars: DEFAULT_MAX_CHARS, keepChars: DEFAULT_KEEP_CHARS },
    };
    const assetsDir = fileURLToPath(new URL("./studio", import.meta.url));
    const app = createStudioApp({ store, info, token, assetsDir });
    const server = serve({ fetch: app.fetch, hostname: STUDIO_HOST, port: options.port });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.once("listening", () => {
        server.off("error", reject);
        resolve();
      });
    });
    const address = server.address();
    const port = address !== null && typeof address === "object" ? address.port : options.port;
    await writeLine(
      io.stdout,
      [
        `studio for ${info.store} (${options.allowWrites ? "writes allowed" : "read-only"})`,
        `open http://${STUDIO_HOST}:${port}/#token=${token}`,
        "Ctrl-C stops it.",
      ].join("\n"),
    );
    await stopped;
    (server as Server).closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  } finally {
    await store.close().catch(() => {});
  }
}
