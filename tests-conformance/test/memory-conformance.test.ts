import { describeMessageStoreConformance } from "@message-store/conformance";
import { MessageStore } from "@message-store/core";
import "@message-store/core/memory";

// Core's reference driver. It lives here, not in core's tests: core cannot depend on this
// package (a workspace cycle). Every open is a new, empty store, so there is nothing to reset and
// nothing outlives close(): the persistence cases are reported as skipped.
describeMessageStoreConformance({
  name: "memory",
  open: () => MessageStore.initialize({ storage: "memory" }),
  reset: async () => {},
  persistent: false,
});
