import { MessageStore } from "@message-store/core";
import { parseConfig } from "@message-store/core/adapter";
import {
  ADAPTER,
  DEFAULT_COMPACT_THRESHOLD_BYTES,
  JsonConfigSchema,
  type JsonStoreConfig,
  MEMORY_PATH,
} from "./config.js";
import { FilePersistence } from "./file-persistence.js";
import { JsonDriver } from "./json-driver.js";

/**
 * The embedded message store: the whole dataset in memory, persisted to one human-readable JSON
 * file plus an append-only journal. Every acknowledged write is on disk (fdatasync) before the
 * call resolves; one process at a time may open a file (`StoreLockedError` otherwise). Its
 * extras are on the driver: `store.driver.path`, `store.driver.compact()`.
 */
export type JsonMessageStore = MessageStore<JsonDriver>;

export const JsonMessageStore = {
  /**
   * Opens (or creates) the store at `config.path`: locks the file, loads it and replays the
   * journal; `path: ":memory:"` keeps nothing on disk. Also `MessageStore.initialize({ storage:
   * "json", path })`. `storage: "json"` may be given or left out. Throws `ConfigurationError` for
   * a bad config (before any I/O), `NotFoundError` with `create: false` when there is no store at
   * the path (nothing is created), `StoreLockedError` when another process (or this one) has it
   * open, `CorruptDataError` when the files do not parse (they are left untouched) and
   * `StorageError` when the disk refuses.
   */
  async open(config: JsonStoreConfig & { storage?: "json" }): Promise<JsonMessageStore> {
    const {
      path,
      compact_threshold_bytes: configured,
      file_mode: fileMode,
      create,
    } = parseConfig(JsonConfigSchema, config, ADAPTER);
    if (path === MEMORY_PATH) return new MessageStore(new JsonDriver(null));
    const persistence = await FilePersistence.open(path, {
      bytes: configured ?? DEFAULT_COMPACT_THRESHOLD_BYTES,
      growWithMainFile: configured === undefined,
      create,
      ...(fileMode === undefined ? {} : { fileMode }),
    });
    return new MessageStore(new JsonDriver(persistence));
  },
};
