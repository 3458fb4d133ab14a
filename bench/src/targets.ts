import { mongoForTests, postgresForTests } from "@message-store/test-servers";
import { openJson } from "./adapters/json.js";
import { openMongo } from "./adapters/mongo.js";
import { openPostgres } from "./adapters/postgres.js";
import type { AdapterName, BenchTarget } from "./adapters/types.js";

/** A target with whatever server it needed started; `stop` closes it and stops the server. */
export async function startTarget(
  adapter: AdapterName,
  options: { pool: number },
): Promise<{ target: BenchTarget; stop(): Promise<void> }> {
  if (adapter === "json") {
    const target = await openJson();
    return { target, stop: () => target.close() };
  }
  if (adapter === "postgres") {
    const server = await postgresForTests();
    const origin = server.server
      ? "embedded, started by the harness"
      : "MESSAGE_STORE_POSTGRES_URL";
    try {
      const target = await openPostgres({ url: server.url, origin, poolSize: options.pool });
      return {
        target,
        stop: async () => {
          await target.close().catch(() => {});
          await server.stop();
        },
      };
    } catch (error) {
      await server.stop();
      throw error;
    }
  }
  const server = await mongoForTests();
  try {
    const target = await openMongo({ uri: server.uri, jongodb: server.server !== null });
    return {
      target,
      stop: async () => {
        await target.close().catch(() => {});
        await server.stop();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
