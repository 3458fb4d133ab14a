import cliProgress from "cli-progress";

/** One unit of work on the progress display. */
export interface ProgressTask {
  /** Advances by `n` (default 1). */
  tick(n?: number): void;
  /** Marks it finished (idempotent). */
  done(): void;
}

/**
 * The progress display: a cli-progress bar per task on a terminal; on anything else (CI logs,
 * a pipe) plain lines at the start, at every quarter and at the end, so logs stay readable.
 * Log lines go above the bar.
 */
export class Progress {
  readonly #tty = Boolean(process.stderr.isTTY);
  readonly #multi: cliProgress.MultiBar | null;
  readonly #started = performance.now();

  constructor() {
    this.#multi = this.#tty
      ? new cliProgress.MultiBar(
          {
            format: " {bar} {percentage}% | {value}/{total} | {duration_formatted} | {label}",
            barsize: 28,
            hideCursor: true,
            clearOnComplete: false,
            stopOnComplete: false,
            etaBuffer: 50,
            stream: process.stderr,
          },
          cliProgress.Presets.shades_classic,
        )
      : null;
  }

  /** Elapsed seconds since the display was created. */
  get elapsedSeconds(): number {
    return (performance.now() - this.#started) / 1000;
  }

  /** A line above the bars (or on stderr). */
  log(line: string): void {
    const stamped = `[${this.elapsedSeconds.toFixed(0).padStart(4)}s] ${line}`;
    if (this.#multi) this.#multi.log(`${stamped}\n`);
    else process.stderr.write(`${stamped}\n`);
  }

  task(label: string, total: number): ProgressTask {
    const start = performance.now();
    let value = 0;
    let finished = false;
    const safeTotal = Math.max(1, total);
    if (this.#multi) {
      const bar = this.#multi.create(safeTotal, 0, { label });
      return {
        tick: (n = 1) => {
          value += n;
          bar.update(Math.min(value, safeTotal));
        },
        done: () => {
          if (finished) return;
          finished = true;
          bar.update(safeTotal);
          bar.stop();
          this.#multi?.remove(bar);
          this.log(`${label}: done in ${((performance.now() - start) / 1000).toFixed(1)} s`);
        },
      };
    }
    this.log(`${label}: started (${total})`);
    let quarter = 0;
    return {
      tick: (n = 1) => {
        value += n;
        const q = Math.floor((value / safeTotal) * 4);
        if (q > quarter && q < 4) {
          quarter = q;
          // Quarters only for tasks long enough to need them.
          if (performance.now() - start > 3000) this.log(`${label}: ${q * 25}%`);
        }
      },
      done: () => {
        if (finished) return;
        finished = true;
        this.log(`${label}: done in ${((performance.now() - start) / 1000).toFixed(1)} s`);
      },
    };
  }

  stop(): void {
    this.#multi?.stop();
  }
}
