import {
  type CheckpointSaverTestInitializer,
  deltaChannelHistoryTests,
  validate,
} from "@langchain/langgraph-checkpoint-validation";
import { type MessageStore, newId } from "@message-store/core";
import { MessageStoreSaver } from "../src/index.js";
import { BACKENDS, type StoreHome, storeHome } from "./support/stores.js";

// LangGraph's own conformance suite for checkpointers, through its `validate()` (its command-line
// runner fails at setup on Node 20 with vitest 4; vitest runs this file with `globals: true`),
// and its opt-in `getDeltaChannelHistory` tests, which walk a thread's parent chain.
// Each checkpointer it creates acts as a user of its own (reads see only that user's threads),
// and its threads are erased when it is destroyed, so instances never see each other's data.
for (const backend of BACKENDS) {
  let home: StoreHome;
  let store: MessageStore;
  const initializer: CheckpointSaverTestInitializer<MessageStoreSaver> = {
    checkpointerName: `MessageStoreSaver (${backend})`,
    beforeAllTimeout: 60_000,
    async beforeAll() {
      home = await storeHome(backend, "validation");
      store = await home.open();
    },
    async afterAll() {
      await store?.close();
      await home?.remove();
    },
    createCheckpointer: () => new MessageStoreSaver(store, { userId: `validator-${newId()}` }),
    async destroyCheckpointer(saver) {
      await store.deleteUserData(saver.options.userId!);
    },
  };
  validate(initializer);
  deltaChannelHistoryTests(initializer);
}
