import { MessageStore } from "@message-store/core";
import "@message-store/postgres";
import { inject } from "vitest";
import { describeMessageStoreConformance } from "../src/index.js";
import { truncateTables } from "./postgres-lanes.js";

const dsn = inject("postgresUrl");
const schema = inject("postgresSchema");

describeMessageStoreConformance({
  name: "postgres",
  open: () => MessageStore.initialize({ storage: "postgres", dsn, schema }),
  reset: () => truncateTables(dsn, schema),
});
