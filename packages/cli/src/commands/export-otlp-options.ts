import { type Command, Option } from "commander";
import { UsageError } from "../cli-errors.js";
import type { OtlpExportOptions } from "./export-otlp.js";

const collect = (value: string, previous: string[]) => [...previous, value];

/** The `export` flags that send traces to an OpenTelemetry collector instead of writing NDJSON. */
export function addOtlpOptions(command: Command, timeArg: (value: string) => number): Command {
  return command
    .option("--otlp <endpoint>", "send the turn traces as GenAI spans to this OTLP/HTTP collector")
    .addOption(
      new Option("--otlp-protocol <protocol>", "OTLP/HTTP encoding with --otlp")
        .choices(["protobuf", "json"])
        .default("protobuf"),
    )
    .option("--header <name:value>", "request header with --otlp (repeatable)", collect, [])
    .option(
      "--since <when>",
      "with --otlp: only traces since (90m, 24h, 7d, an ISO date)",
      timeArg,
    );
}

/** The options of an `export --otlp` run; `-o` is refused (the collector is the output). */
export function otlpOptionsOf(options: Record<string, unknown>): OtlpExportOptions {
  if (options.output !== undefined) throw new UsageError("--otlp and --output exclude each other");
  return {
    endpoint: options.otlp as string,
    protocol: options.otlpProtocol as "json" | "protobuf",
    headers: options.header as string[],
    ...(options.since === undefined ? {} : { since: options.since as number }),
    ...(options.user === undefined ? {} : { user: options.user as string }),
    pageSize: 500,
  };
}
