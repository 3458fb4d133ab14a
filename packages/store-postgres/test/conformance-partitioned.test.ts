import { describeMessageStoreConformance } from "@message-store/conformance";
import { MessageStore } from "@message-store/core";
import "../src/index.js";
import { conformanceHooks, endOtherSessions, useDatabase } from "./helpers.js";

// The partitioned layout (README, "Running at scale"): the whole suite on tables hash-partitioned
// into 4, on the run's server (embedded 18, or MESSAGE_STORE_POSTGRES_URL). A restart ends every
// session of the database, as on an external server; the durability of a real restart is the
// same code path as the default layout's, which `conformance.test.ts` stops and starts.
const db = useDatabase("conformance_partitioned");

describeMessageStoreConformance({
  name: "postgres (partitioned, 4 partitions)",
  open: () =>
    MessageStore.initialize({ storage: "postgres", dsn: db.url(), pool_min: 0, partitions: 4 }),
  ...conformanceHooks(db.url),
  restart: () => endOtherSessions(db.url()),
});
