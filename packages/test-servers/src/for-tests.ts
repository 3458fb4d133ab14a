import { type PostgresServer, startEmbeddedPostgres } from "./embedded-postgres.js";
import { MONGODB_URL_ENV, POSTGRES_URL_ENV } from "./env-names.js";
import { type JongodbTopology, type MongoServer, startJongodb } from "./jongodb.js";

export { MONGODB_URL_ENV, POSTGRES_URL_ENV };

/**
 * PostgreSQL for a test run. Honours `MESSAGE_STORE_POSTGRES_URL` (then `server` is null and
 * `stop` does nothing); otherwise starts an embedded server, which `stop` shuts down and deletes.
 */
export async function postgresForTests(): Promise<{
  url: string;
  stop(): Promise<void>;
  server: PostgresServer | null;
}> {
  const external = process.env[POSTGRES_URL_ENV];
  if (external) return { url: external, stop: async () => {}, server: null };
  const server = await startEmbeddedPostgres();
  return { url: server.url, stop: () => server.stop(), server };
}

/**
 * MongoDB for a test run. Honours `MESSAGE_STORE_MONGODB_URL` (then `server` is null and `stop`
 * does nothing); otherwise starts jongodb, which `stop` shuts down.
 */
export async function mongoForTests(options: { topology?: JongodbTopology } = {}): Promise<{
  uri: string;
  stop(): Promise<void>;
  server: MongoServer | null;
}> {
  const external = process.env[MONGODB_URL_ENV];
  if (external) return { uri: external, stop: async () => {}, server: null };
  const server = await startJongodb(options);
  return { uri: server.uri, stop: () => server.stop(), server };
}
