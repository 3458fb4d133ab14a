/**
 * `@message-store/core/memory`: the reference in-memory driver, {@link MemoryDriver}, with every
 * capability, and the engine it runs (state, write resolution, operations), which persistent
 * adapters such as `@message-store/json` run under their own journal. Importing it registers
 * `MessageStore.initialize({ storage: "memory" })`: a new, empty store per open, nothing kept
 * after `close()` (tests, examples, prototypes).
 * @packageDocumentation
 */
import { registerStorage } from "./factory/register-storage.js";
// The module the declaration below merges into must be loaded where `memory.d.ts` is built.
import type {} from "./index.js";
import {
  MEMORY_STORAGE,
  MemoryMessageStore,
  type MemoryStoreConfig,
} from "./memory/memory-message-store.js";

export {
  type CheckpointEntry,
  type NamespaceCheckpoints,
  putChannelValue,
  storeCheckpoint,
  storeCheckpointWrites,
  type ThreadCheckpoints,
} from "./memory/checkpoint-state.js";
export {
  cloneConversation,
  cloneJson,
  cloneMessage,
  cloneTrace,
  modelCopier,
} from "./memory/clone.js";
export type {
  JournalFieldKind,
  JournalFieldTypes,
  OperationKind,
  Resolved,
  WriteSpec,
} from "./memory/journal.js";
export {
  MemoryDriver,
  type MemoryDriverOptions,
  type WriteCommit,
} from "./memory/memory-driver.js";
export {
  MEMORY_STORAGE,
  MemoryConfigSchema,
  MemoryMessageStore,
  type MemoryStoreConfig,
} from "./memory/memory-message-store.js";
export {
  conversationView,
  lastActivityAt,
  MemoryState,
  type MessageEntry,
  type StoredConversation,
  storedConversation,
} from "./memory/memory-state.js";
export { storedTrace } from "./memory/operation-rules.js";
export {
  applyOperation,
  applyResolved,
  checkOperation,
  OPERATION_KINDS,
  type Operation,
  type OperationResult,
  resolveWrite,
  WRITE_OPERATIONS,
  type Write,
  type WriteResult,
  writeKeys,
} from "./memory/write-table.js";

registerStorage({
  name: MEMORY_STORAGE,
  open: (config) => MemoryMessageStore.open(config as MemoryStoreConfig),
});

// As an adapter package declares its config (see `StorageConfigMap`); "./index.js" is the root
// export, here and next to the built `memory.d.ts`.
declare module "./index.js" {
  interface StorageConfigMap {
    memory: MemoryStoreConfig;
  }
}
