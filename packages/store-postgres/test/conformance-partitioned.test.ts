import { describeMessageStoreConformance } from "@message-store/conformance";
import { MessageStore } from "@message-store/core";
import "../src/index.js";
import { conformanceHooks, endOtherSessions, useDatabase } from "./helpers.js";

// The partitioned layout (README, "Running at scale"): the whole suite on tables hash-partitioned
// into 4, on the run's server (embedded 18, or MESSAGE_STORE_POSTGRES_URL). A restart ends every
// session of the database, as on an external server; the durability of a real restart is the
// same code path as the default layout's, which `conformance.test.ts` stops and starts.
//
// MESSAGE_STORE_POSTGRES_PARTITIONED_URL names instead a database whose schema a store already
// created with `partitions` and that was prepared beforehand, e.g. distributed on a Citus
// cluster (README, "Citus"): the suite then runs there, with the layout it finds, in the schema
// MESSAGE_STORE_POSTGRES_PARTITIONED_SCHEMA names (the URL's `search_path` must name it too, for
// the suite's own queries: `?options=-c%20search_path%3Dapp`).
const external = process.env.MESSAGE_STORE_POSTGRES_PARTITIONED_URL;
const schema = process.env.MESSAGE_STORE_POSTGRES_PARTITIONED_SCHEMA;
const db = external ? { url: () => external } : useDatabase("conformance_partitioned");

describeMessageStoreConformance({
  name: external
    ? "postgres (partitioned, prepared database)"
    : "postgres (partitioned, 4 partitions)",
  open: () =>
    MessageStore.initialize({
      storage: "postgres",
      dsn: db.url(),
      pool_min: 0,
      ...(external ? {} : { partitions: 4 }),
      ...(schema ? { schema } : {}),
    }),
  ...conformanceHooks(db.url),
  restart: () => endOtherSessions(db.url()),
});
