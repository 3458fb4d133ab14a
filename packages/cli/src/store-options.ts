import { type Command, Option } from "commander";
import { UsageError } from "./cli-errors.js";
import { type Env, parseStoreSpec, type StoreConfigObject } from "./store-spec.js";

/** Environment variable holding the default `--store` spec. */
export const STORE_ENV = "MESSAGE_STORE";

/** Adds `--store <spec>` (default from `$MESSAGE_STORE`) and `--config <file>` to a command. */
export function addStoreOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        "-s, --store <spec>",
        "the store: json:<path>, sqlite:<path>, postgres:<dsn>, mongodb:<uri> or config:<file>; a value may be env:<VAR>",
      ).env(STORE_ENV),
    )
    .option(
      "-c, --config <file>",
      "a JSON config file with the factory keys (same as --store config:<file>)",
    );
}

/** The store named by `--store` / `--config` (an explicit flag wins over `$MESSAGE_STORE`). */
export function storeFromOptions(command: Command, env: Env): StoreConfigObject {
  const { store, config } = command.opts<{ store?: string; config?: string }>();
  const storeFromEnv = command.getOptionValueSource("store") === "env";
  if (config !== undefined && store !== undefined && !storeFromEnv) {
    throw new UsageError("give --store or --config, not both");
  }
  if (config !== undefined) return parseStoreSpec(`config:${config}`, env);
  if (store !== undefined) return parseStoreSpec(store, env);
  throw new UsageError(`no store: give --store <spec> or --config <file> (or set ${STORE_ENV})`);
}
