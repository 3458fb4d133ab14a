import { join } from "node:path";
import { serveStatic } from "@hono/node-server/serve-static";
import { isMessageStoreError, redactSecrets } from "@message-store/core";
import { Hono } from "hono";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { requireToken, requireWrites } from "./access.js";
import { actionRoutes } from "./api/actions.js";
import { conversationActionRoutes } from "./api/conversation-actions.js";
import { conversationRoutes } from "./api/conversations.js";
import { searchRoutes } from "./api/search.js";
import { traceRoutes } from "./api/traces.js";
import { transcriptRoutes } from "./api/transcript.js";
import { usageRoutes } from "./api/usage.js";
import type { ApiError } from "./api-types.js";
import type { StudioDeps } from "./studio-deps.js";

export interface StudioAppOptions extends StudioDeps {
  /** Every API request must carry it (see `requireToken`). */
  token: string;
  /** Folder of the built page (`dist/studio`). */
  assetsDir: string;
}

const STORE_ERROR_STATUS: Partial<Record<string, ContentfulStatusCode>> = {
  VALIDATION: 400,
  NOT_FOUND: 404,
  UNSUPPORTED: 400,
  CONNECTION: 503,
  OUTCOME_UNKNOWN: 503,
  STORE_CLOSED: 503,
};

function errorBody(code: string, message: string): ApiError {
  return { error: { code, message: redactSecrets(message) } };
}

/**
 * The studio's HTTP app: the token guard in front of everything, the JSON API under `/api`, the
 * write actions under `/api/actions` behind the write guard, and the built page for every other
 * path (the page routes in the browser).
 */
export function createStudioApp(options: StudioAppOptions): Hono {
  const app = new Hono();
  app.use(
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", "data:"],
        connectSrc: ["'self'"],
        frameAncestors: ["'none'"],
      },
      referrerPolicy: "no-referrer",
      strictTransportSecurity: false,
    }),
  );
  app.use(requireToken(options.token));
  app.use("/api/*", csrf(), async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
  });

  app.get("/api/info", (c) => c.json(options.info));
  app.route("/api/conversations", conversationRoutes(options));
  app.route("/api/conversations", transcriptRoutes(options));
  app.route("/api", traceRoutes(options));
  app.route("/api/usage", usageRoutes(options));
  app.route("/api/search", searchRoutes(options));
  app.use("/api/actions/*", requireWrites(options.info.allowWrites));
  app.route("/api/actions", actionRoutes(options));
  app.route("/api/actions", conversationActionRoutes(options));
  app.all("/api/*", (c) => c.json(errorBody("NOT_FOUND", "no such endpoint"), 404));

  app.use("/assets/*", serveStatic({ root: options.assetsDir }));
  app.get("*", serveStatic({ path: join(options.assetsDir, "index.html") }));
  app.get("*", (c) => c.text("the studio page is not built: run the CLI package's build", 500));

  app.onError((error, c) => {
    if (error instanceof HTTPException) {
      const status = error.status as ContentfulStatusCode;
      const code = status === 404 ? "NOT_FOUND" : status === 403 ? "FORBIDDEN" : "BAD_REQUEST";
      return c.json(errorBody(code, error.message), status);
    }
    if (isMessageStoreError(error)) {
      return c.json(errorBody(error.code, error.message), STORE_ERROR_STATUS[error.code] ?? 500);
    }
    return c.json(errorBody("INTERNAL", (error as Error).message ?? String(error)), 500);
  });
  return app;
}
