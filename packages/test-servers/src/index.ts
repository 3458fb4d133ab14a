/**
 * Real database servers for this repo's tests: embedded PostgreSQL 18 and the jongodb
 * MongoDB wire server, and the minimal record inputs the adapters' tests share. Private
 * workspace package; no mocks.
 * @packageDocumentation
 */
export {
  type EmbeddedPostgresOptions,
  type PostgresServer,
  startEmbeddedPostgres,
} from "./embedded-postgres.js";
export { REDIS_URL_ENV } from "./env-names.js";
export {
  MONGODB_URL_ENV,
  mongoForTests,
  POSTGRES_URL_ENV,
  postgresForTests,
} from "./for-tests.js";
export { findFreePort } from "./free-port.js";
export {
  type JongodbTopology,
  jongodbBinaryPath,
  type MongoServer,
  startJongodb,
} from "./jongodb.js";
export {
  type PgBouncerOptions,
  type PgBouncerServer,
  pgbouncerBinary,
  startPgBouncer,
} from "./pgbouncer.js";
export { type PgliteServer, startPgliteServer } from "./pglite-server.js";
export { assertBuiltInServer, builtInServersSupported } from "./platform.js";
export { messageInput, traceInput } from "./record-inputs.js";
export {
  type RedisServer,
  redisForTests,
  redisServerBinary,
  startRedisServer,
} from "./redis-server.js";
export {
  queryServer,
  type ReplicatedDatabase,
  startReplicatedDatabase,
  waitForReplay,
} from "./standby-replay.js";
export { TcpProxy } from "./tcp-proxy.js";
export { createTestDatabase, dropTestDatabase } from "./test-databases.js";
