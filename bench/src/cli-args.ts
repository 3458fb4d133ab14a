import { ADAPTERS, type AdapterName } from "./adapters/types.js";

/** Command-line options of a run. */
export interface RunOptions {
  adapters: AdapterName[];
  scenarios: string[] | null;
  scale: number;
  out: string | null;
  /** Big-store size for Mongo; default 50,000 on jongodb, 1,000,000 on a real server. */
  mongoMax: number | null;
  pool: number;
  /** Store sizes of the peers scenario's big-store reads. */
  peerStores: number[];
}

export const USAGE = `pnpm bench [-- options]     (or: node bench/dist/index.js [options])

  --only <a,b>        adapters to run: json, postgres, mongo (default: all)
  --scenario <a,b>    scenarios: roundtrips, ingest, turns, context, traces, delete, json, json-memory, json-compaction,
                      peers, peers-json, langgraph (default: all)
  --peer-stores <a,b> big-store sizes of the peers scenario (default 200000; e.g. 200000,1000000)
  --scale <x>         multiply sizes and iteration counts (default 1; 0.1 for a quick run)
  --mongo-max <n>     messages to load into Mongo for the big-store scenarios
                      (default 50000 on jongodb, 1000000 on MESSAGE_STORE_MONGODB_URL)
  --pool <n>          connections in each Postgres pool, ours and raw (default 10)
  --out <path>        where to write the report (default: BENCHMARKS.md at the repo root)
  --no-report         do not write a report

Other commands:
  profile <adapter> <context|ingest|turns|traces|append> [s]  the hot path in a loop (run under node --cpu-prof)
  top-frames <file.cpuprofile|dir> [n]                        top self-time functions of a CPU profile
  report [--out <path>]                                       render the last run's report again (current FINDINGS.md)
  migrate [--messages 200000] [--traces n] [--batch-size 500]
                                                              issue #17: the CLI's migrate JSON → PostgreSQL, timed
  scale [--messages 1000000] [--partitions 16] [--iterations 2000] [--ingest 5000]
                                                              issue #18: PostgreSQL's partitioned layout against the
                                                              default one on the same data; prints tables
  writers [--writers 4,8,16] [--partitions 16] [--turns 100] [--batches 10] [--rounds 3]
                                                              issue #30: turn-loop and ingest throughput of concurrent
                                                              writers, default vs partitioned layout; prints a table
  sqlite [--iterations 200] [--threads 20]                    the SQLite store against Mastra's LibSQLStore (file:) and
                                                              LangGraph's SqliteSaver, interleaved; prints tables
  make-json-fixture <path> [messages] [traces]               write a JSON store file of the synthetic dataset
  search [--messages 50000] [--dims 1536] [--users 100] [--iterations 20] [--targets json,postgres,pglite]
                                                              issue #15's search: top-10 with a user filter on JSON,
                                                              Postgres float8[] and Postgres pgvector (PGlite), with the
                                                              ratio to the previous float8[] query; prints a table

Environment: MESSAGE_STORE_POSTGRES_URL / MESSAGE_STORE_MONGODB_URL use those servers instead of
embedded PostgreSQL / jongodb.`;

export function parseArgs(argv: string[]): RunOptions {
  const options: RunOptions = {
    adapters: [...ADAPTERS],
    scenarios: null,
    scale: 1,
    out: "",
    mongoMax: null,
    pool: 10,
    peerStores: [200_000],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value\n\n${USAGE}`);
      return v;
    };
    const number = () => {
      const v = Number(value());
      if (!Number.isFinite(v) || v <= 0) throw new Error(`${arg} needs a positive number`);
      return v;
    };
    switch (arg) {
      case "--only": {
        const list = value()
          .split(",")
          .map((s) => s.trim()) as AdapterName[];
        for (const a of list) if (!ADAPTERS.includes(a)) throw new Error(`unknown adapter ${a}`);
        options.adapters = list;
        break;
      }
      case "--scenario":
        options.scenarios = value()
          .split(",")
          .map((s) => s.trim());
        break;
      case "--scale":
        options.scale = number();
        break;
      case "--mongo-max":
        options.mongoMax = Math.round(number());
        break;
      case "--pool":
        options.pool = Math.round(number());
        break;
      case "--peer-stores":
        options.peerStores = value()
          .split(",")
          .map((s) => Math.round(Number(s)))
          .filter((n) => n > 0)
          .sort((a, b) => a - b);
        break;
      case "--out":
        options.out = value();
        break;
      case "--no-report":
        options.out = null;
        break;
      case "--help":
      case "-h":
        console.log(USAGE);
        process.exit(0);
        break;
      case "--":
        break;
      default:
        throw new Error(`unknown option ${arg}\n\n${USAGE}`);
    }
  }
  return options;
}
