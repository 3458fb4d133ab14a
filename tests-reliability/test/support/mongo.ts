import { randomBytes } from "node:crypto";

/**
 * jongodb answers the driver's streaming `hello` wrongly, so the driver would mark it unknown and
 * stall every few seconds; polling monitoring avoids that. Set in the URI, so the client the
 * adapter creates from it gets it too. (Same workaround as the adapter's own tests.)
 */
export function jongodbUri(uri: string): string {
  const url = new URL(uri);
  url.searchParams.set("serverMonitoringMode", "poll");
  return url.toString();
}

/** A unique database name. */
export function uniqueDbName(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString("hex")}`;
}
