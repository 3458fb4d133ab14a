import { MessageStore } from "@message-store/core";
import "@message-store/json";
import { describeMessageStoreConformance } from "../src/index.js";

// Every open of ":memory:" is a new, empty store, so there is nothing to reset and nothing
// outlives close(): the persistence tests are reported as skipped.
describeMessageStoreConformance({
  name: "json-memory",
  open: () => MessageStore.initialize({ storage: "json", path: ":memory:" }),
  reset: async () => {},
  persistent: false,
});
