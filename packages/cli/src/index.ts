/**
 * `@message-store/cli`: the `message-store` command (stats, show, traces, export, import,
 * migrate, embed, studio). Importing the package gives the program builder; the bin
 * (`bin/message-store.js`) runs it.
 * @packageDocumentation
 */
export { ExitCode } from "./cli-errors.js";
export { main } from "./main.js";
export { type CliIo, createProgram, run } from "./program.js";
export {
  describeStore,
  loadConfigFile,
  parseStoreSpec,
  type StoreConfigObject,
} from "./store-spec.js";
