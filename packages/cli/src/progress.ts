import cliProgress from "cli-progress";
import { formatCount, formatSeconds } from "./format/numbers.js";

/** Where a long command stands. `done`/`total` count conversations. */
export interface ProgressState {
  done: number;
  total: number;
  messages: number;
  turnTraces: number;
}

/** Reports progress: a live bar on a terminal, plain lines otherwise. */
export interface Progress {
  update(state: ProgressState): void;
  /** Final state; the bar is completed (or a last line printed). */
  finish(state: ProgressState): void;
  /** Stops drawing without completing (on interruption or error). */
  stop(): void;
}

export interface ProgressOptions {
  stream: NodeJS.WritableStream;
  /** Draw a bar (the stream is a terminal) or print plain lines. */
  tty: boolean;
  /** Prefix of plain lines, e.g. `migrate`. */
  label: string;
  /** Minimum time between two plain lines (the first and the last are always printed). */
  intervalMs?: number;
  now?: () => number;
}

function rate(messages: number, elapsedMs: number): number {
  return elapsedMs > 0 ? Math.round((messages * 1000) / elapsedMs) : 0;
}

/** A bar (cli-progress) with rate and ETA when `tty`, else throttled plain lines. */
export function createProgress(options: ProgressOptions): Progress {
  return options.tty ? barProgress(options) : lineProgress(options);
}

function barProgress({ stream, now = Date.now }: ProgressOptions): Progress {
  const bar = new cliProgress.SingleBar(
    {
      format:
        "{bar} {percentage}% | {done}/{all} conversations | {messages} messages | {traces} traces | {rate} msg/s | ETA {eta_formatted}",
      stream,
      hideCursor: true,
      etaBuffer: 100,
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = now();
  let running = false;
  const payload = (s: ProgressState) => ({
    done: formatCount(s.done),
    all: formatCount(s.total),
    messages: formatCount(s.messages),
    traces: formatCount(s.turnTraces),
    rate: formatCount(rate(s.messages, now() - started)),
  });
  const update = (s: ProgressState) => {
    if (!running) {
      bar.start(s.total, s.done, payload(s));
      running = true;
    }
    if (s.total !== bar.getTotal()) bar.setTotal(s.total);
    bar.update(s.done, payload(s));
  };
  return {
    update,
    finish(s) {
      update(s);
      bar.stop();
      running = false;
    },
    stop() {
      if (running) bar.stop();
      running = false;
    },
  };
}

function lineProgress({
  stream,
  label,
  intervalMs = 1000,
  now = Date.now,
}: ProgressOptions): Progress {
  const started = now();
  let last = Number.NEGATIVE_INFINITY;
  const line = (s: ProgressState) => {
    const elapsed = now() - started;
    const percent = s.total > 0 ? Math.floor((s.done * 100) / s.total) : 100;
    const eta =
      s.done > 0 ? Math.ceil(((elapsed / s.done) * (s.total - s.done)) / 1000) : Number.NaN;
    stream.write(
      `${label}: ${formatCount(s.done)}/${formatCount(s.total)} conversations (${percent}%), ` +
        `${formatCount(s.messages)} messages, ${formatCount(s.turnTraces)} traces, ` +
        `${formatCount(rate(s.messages, elapsed))} msg/s, ETA ${formatSeconds(eta)}\n`,
    );
  };
  return {
    update(s) {
      const t = now();
      if (t - last < intervalMs) return;
      last = t;
      line(s);
    },
    finish(s) {
      line(s);
    },
    stop() {},
  };
}
