import type { Readable } from "node:stream";
import { type MessageRole, MessageRoleSchema, redactSecrets } from "@message-store/core";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import packageJson from "../package.json" with { type: "json" };
import { describeError, ExitCode, exitCodeFor, UsageError } from "./cli-errors.js";
import { embedCommand } from "./commands/embed.js";
import { exportCommand } from "./commands/export.js";
import { exportOtlpCommand } from "./commands/export-otlp.js";
import { addOtlpOptions, otlpOptionsOf } from "./commands/export-otlp-options.js";
import { importCommand } from "./commands/import.js";
import { migrateCommand } from "./commands/migrate.js";
import { showConversationCommand } from "./commands/show.js";
import { statsCommand } from "./commands/stats.js";
import { tracesCommand } from "./commands/traces.js";
import { parseTimeArg } from "./format/time.js";
import { OutputClosedError } from "./output.js";
import { addStoreOptions, storeFromOptions } from "./store-options.js";
import { type Env, parseStoreSpec } from "./store-spec.js";
import { studioCommand } from "./studio/studio-command.js";

/** Streams and environment a run uses (the process's, in the binary). */
export interface CliIo {
  stdin: Readable;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
  env: Env;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError("expected a positive integer");
  }
  return n;
}

function batchSize(value: string): number {
  const n = positiveInt(value);
  if (n > 100_000) throw new InvalidArgumentError("at most 100000 (the store's batch limit)");
  return n;
}

function portNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65_535)
    throw new InvalidArgumentError("expected a port, 0–65535");
  return n;
}

const ROLES = new Set(MessageRoleSchema.options);

function roleList(value: string): MessageRole[] {
  const roles = value.split(",").map((r) => r.trim());
  const unknown = roles.find((r) => !ROLES.has(r as MessageRole));
  if (unknown !== undefined || roles.length === 0) {
    throw new InvalidArgumentError(
      `expected roles separated by commas, of ${[...ROLES].join(", ")}`,
    );
  }
  return roles as MessageRole[];
}

function timeArg(value: string): number {
  const ms = parseTimeArg(value);
  if (ms === null) {
    throw new InvalidArgumentError(
      "expected a duration (90m, 24h, 7d), an ISO date (2025-06-01) or 'now'",
    );
  }
  return ms;
}

/** Builds the `message-store` command line. Actions run against `io`. */
export function createProgram(io: CliIo): Command {
  const program = new Command("message-store")
    .description(
      "Inspect, export, import and migrate message-store data (JSON file, PostgreSQL, MongoDB).",
    )
    .version(packageJson.version)
    .option("--debug", "print stack traces on errors")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(redactSecrets(text)),
    })
    .showHelpAfterError("(add --help for usage)");

  addStoreOptions(program.command("stats"))
    .description("counts, date range and top agents by tokens (reads the whole store)")
    .option("--top <n>", "how many agents to list", positiveInt, 5)
    .option("--json", "print the numbers as JSON")
    .action((options, command: Command) =>
      statsCommand(
        storeFromOptions(command, io.env),
        { top: options.top, json: Boolean(options.json) },
        io,
      ),
    );

  // Without its record (`show --store x`), commander would reject `--store` as unknown to `show`
  // itself; name what is missing instead.
  const show = program
    .command("show")
    .description("print one record")
    .usage("conversation <id> [options]")
    .allowUnknownOption()
    .allowExcessArguments()
    .action((_options, command: Command) => {
      const record = command.args[0];
      const problem =
        record === undefined || record.startsWith("-")
          ? 'missing "conversation <id>"'
          : `unknown record ${JSON.stringify(record)}, expected "conversation <id>"`;
      throw new UsageError(`${problem}: message-store show conversation <id> --store <spec>`);
    });
  addStoreOptions(show.command("conversation").argument("<id>", "conversation id"))
    .description(
      "a readable transcript: flagged messages, tool calls and results, trace totals per turn",
    )
    .option("--full", "do not shorten long tool arguments and results")
    .option("--include-deleted", "show a soft-deleted conversation and soft-deleted messages (✗)")
    .action((id: string, options, command: Command) =>
      showConversationCommand(
        storeFromOptions(command, io.env),
        id,
        { full: Boolean(options.full), includeDeleted: Boolean(options.includeDeleted) },
        io,
      ),
    );

  addStoreOptions(program.command("traces"))
    .description("token, cost and latency usage of agent turns over a time window")
    .option("-a, --agent <id>", "only this agent")
    .option("-u, --user <id>", "only this user's turns")
    .option(
      "--since <when>",
      "start: a duration back from now (90m, 24h, 7d) or an ISO date",
      timeArg,
      undefined,
    )
    .option("--until <when>", "end (exclusive), same forms; default now", timeArg, undefined)
    .addOption(
      new Option("--by <unit>", "one row per UTC hour, day, or turn")
        .choices(["hour", "day", "turn"])
        .default("hour"),
    )
    .option("--limit <n>", "rows with --by turn", positiveInt, 50)
    .action((options, command: Command) => {
      const until: number = options.until ?? Date.now();
      const since: number = options.since ?? until - 86_400_000;
      if (since >= until) throw new UsageError("--since must be before --until");
      return tracesCommand(storeFromOptions(command, io.env), { ...options, since, until }, io);
    });

  addOtlpOptions(
    addStoreOptions(program.command("export"))
      .description(
        "write every conversation, message, trace and checkpoint as NDJSON (deterministic order)",
      )
      .option("-o, --output <file>", "write to this file instead of standard output")
      .option("-u, --user <id>", "only this user's conversations"),
    timeArg,
  ).action((options, command: Command) =>
    options.otlp === undefined
      ? exportCommand(storeFromOptions(command, io.env), { ...options, pageSize: 1000 }, io)
      : exportOtlpCommand(storeFromOptions(command, io.env), otlpOptionsOf(options), io),
  );

  addStoreOptions(
    program.command("import").argument("[file]", "NDJSON export; standard input when absent or -"),
  )
    .description("upsert an NDJSON export into a store (safe to run again)")
    .option("--batch-size <n>", "messages per write", batchSize, 500)
    .option("--allow-empty", "import an export without records (otherwise an error)")
    .action((file: string | undefined, options, command: Command) =>
      importCommand(
        storeFromOptions(command, io.env),
        { input: file, batchSize: options.batchSize, allowEmpty: Boolean(options.allowEmpty) },
        io,
      ),
    );

  addStoreOptions(program.command("studio"))
    .description(
      "a local web app to browse conversations, transcripts, turn traces and usage (127.0.0.1, token in the URL)",
    )
    .option("-p, --port <n>", "port on 127.0.0.1 (default: any free port)", portNumber, 0)
    .option("--allow-writes", "offer flag/unflag of messages and NDJSON export of conversations")
    .action((options, command: Command) =>
      studioCommand(
        storeFromOptions(command, io.env),
        {
          port: options.port,
          allowWrites: Boolean(options.allowWrites),
          version: packageJson.version,
        },
        io,
      ),
    );

  addStoreOptions(program.command("embed"))
    .description(
      "embed every message pending embedding with your embed(texts) function (safe to run again)",
    )
    .requiredOption(
      "-m, --module <file>",
      "an ES module exporting `async function embed(texts)` that returns one vector per text",
    )
    .option("--batch-size <n>", "texts per embed() call", batchSize, 64)
    .option("--roles <list>", "roles to embed, comma-separated (default user,assistant)", roleList)
    .option("--include-flagged", "embed flagged messages too")
    .option("-u, --user <id>", "only this user's messages")
    .option("-t, --tenant <id>", "only this tenant's messages")
    .addOption(
      new Option("--progress <mode>", "bar, plain lines, or bar only on a terminal")
        .choices(["auto", "bar", "lines"])
        .default("auto"),
    )
    .action((options, command: Command) =>
      embedCommand(
        storeFromOptions(command, io.env),
        {
          module: options.module,
          batchSize: options.batchSize,
          roles: options.roles,
          includeFlagged: Boolean(options.includeFlagged),
          user: options.user,
          tenant: options.tenant,
          tty:
            options.progress === "bar" || (options.progress === "auto" && io.stdout.isTTY === true),
        },
        io,
      ),
    );

  program
    .command("migrate")
    .description(
      "copy every conversation, message, trace and checkpoint from one store to another, then verify",
    )
    .requiredOption(
      "--from <spec>",
      "source store: json:<path>, sqlite:<path>, postgres:<dsn>, mongodb:<uri> or config:<file>",
    )
    .requiredOption("--to <spec>", "target store, same forms")
    .option("--batch-size <n>", "messages per read and per write", batchSize, 500)
    .option("--allow-empty", "migrate a source that holds no conversations (otherwise an error)")
    .addOption(
      new Option("--progress <mode>", "bar, plain lines, or bar only on a terminal")
        .choices(["auto", "bar", "lines"])
        .default("auto"),
    )
    .action((options) =>
      migrateCommand(
        parseStoreSpec(options.from, io.env),
        parseStoreSpec(options.to, io.env),
        {
          batchSize: options.batchSize,
          allowEmpty: Boolean(options.allowEmpty),
          tty:
            options.progress === "bar" || (options.progress === "auto" && io.stdout.isTTY === true),
        },
        io,
      ),
    );

  return program;
}

/** Runs the command line (`argv` as in `process.argv`) and resolves to the exit code. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const program = createProgram(io);
  try {
    await program.parseAsync(argv);
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander printed the message already; help and --version exit 0.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    if (error instanceof OutputClosedError) return ExitCode.ok;
    const debug = argv.includes("--debug") || io.env.MESSAGE_STORE_DEBUG === "1";
    io.stderr.write(`error: ${describeError(error, debug)}\n`);
    return exitCodeFor(error);
  }
}
