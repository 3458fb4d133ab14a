/**
 * `@message-store/test-servers/bridge`: the store harness the framework bridges' tests share
 * (`useBridgeStore` per backend, the CLI runner, the observations of differential scenarios,
 * the README examples' compiler).
 * Its global setup is
 * `@message-store/test-servers/bridge-setup`.
 * @packageDocumentation
 */
import type {} from "./bridge-setup.js";

export {
  BRIDGE_BACKENDS,
  type BridgeBackend,
  type BridgeStore,
  useBridgeStore,
} from "./bridge/bridge-stores.js";
export { type Observation, Observations } from "./bridge/observations.js";
export {
  type CompileExamplesOptions,
  compileExamples,
  readmeExamples,
} from "./bridge/readme-examples.js";
export { cliBin, runCli, runNode } from "./bridge/run-cli.js";
