import type { AdapterName, BenchTarget } from "./adapters/types.js";
import type { Progress } from "./progress.js";
import type { Stat } from "./stats.js";

/** One row of a scenario's table: our call against the raw minimum on the same data. */
export interface Measurement {
  adapter: AdapterName;
  /** What was measured, e.g. "getImmediateContext(20) at 1,000,000 messages". */
  label: string;
  /** Latency of our call (ms). */
  ours?: Stat;
  /** Latency of the raw minimum (ms). */
  raw?: Stat;
  /** Throughput, when the scenario is about it. */
  rate?: { ours: number; raw?: number; unit: string };
  /**
   * ours ÷ raw, as time (> 1: ours is slower). Latency rows: ratio of medians; throughput rows:
   * raw rate ÷ our rate.
   */
  ratio?: number;
  /** Anything else worth a column (rows returned, sizes). */
  note?: string;
}

/** A target of the issue, checked against this run's numbers. */
export interface TargetCheck {
  adapter: AdapterName;
  target: string;
  /** The measured value, formatted. */
  value: string;
  pass: boolean;
}

/** One row of the "vs peers" table: our call against the libraries users would pick instead. */
export interface PeerMeasurement {
  adapter: AdapterName;
  /** What was measured, e.g. "agent turn: append one message". */
  label: string;
  ours: Stat;
  /** Each peer's latency for the same work (ms), by peer name. */
  peers: { name: string; stat: Stat }[];
}

/** What a scenario reports for one adapter. */
export interface ScenarioOutput {
  measurements: Measurement[];
  /** Rows of the "vs peers" section (peer scenarios only). */
  peers?: PeerMeasurement[];
  targets: TargetCheck[];
  /** How the data was made, sizes, anything a reader needs to interpret the numbers. */
  notes: string[];
}

/** What a scenario gets to run with. */
export interface ScenarioContext {
  target: BenchTarget;
  /** Multiplies every size and iteration count (1 = the sizes). */
  scale: number;
  progress: Progress;
  /** Sizes for this adapter on this server. */
  limits: Limits;
}

/**
 * Sizes of the scenarios for one adapter. The sizes at scale 1; a server that cannot hold
 * them (jongodb: see `BenchTarget.constraint`) gets smaller ones, said in the report.
 */
export interface Limits {
  /** Messages per side in the bulk ingest. */
  ingestMessages: number;
  /** Turns of the sequential turn loop, per side. */
  sequentialTurns: number;
  /** Turns per conversation in the concurrent turn loop. */
  turnsPerConversation: number;
  /** Store sizes of the peers scenario's big-store reads (ascending). */
  peerStores: number[];
  /** Messages loaded for the "big store" scenarios. */
  bigStore: number;
  /** Traces loaded for the traces-by-agent scenario. */
  traces: number;
  /** Messages of the conversation `deleteConversation` removes. */
  deleteMessages: number;
  /** Empty the store before the delete scenario instead of deleting inside the big store. */
  freshStoreForDelete: boolean;
  /** Empty the store between the phases of the concurrent turn loop. */
  resetBetweenPhases: boolean;
}

/** One scenario of the issue. */
export interface Scenario {
  id: string;
  title: string;
  /** One paragraph: what is timed, and what the raw minimum is. */
  description: string;
  adapters: readonly AdapterName[];
  run(ctx: ScenarioContext): Promise<ScenarioOutput>;
}

/** `n × scale`, rounded to a multiple of `step`, at least `min`. */
export function scaled(n: number, scale: number, step = 1, min = step): number {
  return Math.max(min, Math.round((n * scale) / step) * step);
}
