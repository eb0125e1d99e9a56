/**
 * Progress on stderr: a bar redrawn in place on a terminal, otherwise a plain line every few
 * seconds and at the end of each stage, so that logs of a CI run stay readable. Once the
 * stages are planned, each line also shows the whole run's share, its time so far and an ETA.
 */
export interface Phase {
  /** Counts `n` more units done. */
  tick(n?: number): void;
  /** Sets the units done so far. */
  set(done: number): void;
  /** Prints the final line and returns the phase's duration in ms. */
  finish(): number;
}

export interface Stage {
  name: string;
  units: number;
  /** About how many items one unit writes: the stage's weight in the overall share and the ETA. */
  weight: number;
  /** Units an earlier run wrote already (a resumed seed). */
  done?: number;
}

export interface Progress {
  /** Announces every stage ahead; optional (the per-stage lines stand alone). */
  plan(stages: readonly Stage[]): void;
  /** Starts a stage of `total` units, `done` of them written already. */
  stage(name: string, total: number, done?: number): Phase;
}

const WIDTH = 28;
const REDRAW_MS = 100;
const LINE_EVERY_MS = 5_000;
/** The rate an ETA is drawn from needs this much of the run behind it. */
const ETA_AFTER_MS = 3_000;

const format = (n: number) => Math.round(n).toLocaleString('en-US');

/** m:ss */
export function clock(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** The whole run's share, elapsed time and ETA: items left at the rate of the items written so far in this run. */
class Overall {
  private readonly stages = new Map<string, { weight: number; units: number; done: number }>();
  private total = 0;
  private atStart = 0;
  private started = 0;

  plan(stages: readonly Stage[]): void {
    for (const s of stages) this.stages.set(s.name, { weight: s.weight, units: s.units, done: s.done ?? 0 });
    this.total = stages.reduce((sum, s) => sum + s.units * s.weight, 0);
    this.atStart = this.written();
    this.started = Date.now();
  }

  update(name: string, done: number): void {
    const stage = this.stages.get(name);
    if (stage) stage.done = Math.min(done, stage.units);
  }

  describe(): string {
    if (this.total === 0) return '';
    const written = this.written();
    const elapsed = Date.now() - this.started;
    const rate = (written - this.atStart) / elapsed;
    const eta = elapsed >= ETA_AFTER_MS && rate > 0 ? clock((this.total - written) / rate) : '…';
    return ` | all ${String(Math.floor((written / this.total) * 100)).padStart(3)}%  ${clock(elapsed)}  ETA ${eta}`;
  }

  private written(): number {
    let sum = 0;
    for (const s of this.stages.values()) sum += s.done * s.weight;
    return sum;
  }
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  const overall = new Overall();
  return {
    plan: (stages) => overall.plan(stages),
    stage(name, total, already = 0) {
      const started = Date.now();
      let done = already;
      let lastDraw = 0;
      const line = () => {
        const share = total === 0 ? 1 : Math.min(1, done / total);
        const seconds = (Date.now() - started) / 1000;
        const rate = seconds > 0 ? (done - already) / seconds : 0;
        const filled = Math.round(share * WIDTH);
        const bar = `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}]`;
        return `${name.padEnd(9)} ${bar} ${format(done)}/${format(total)} ${String(Math.floor(share * 100)).padStart(3)}%  ${format(rate)}/s  ${seconds.toFixed(1)}s${overall.describe()}`;
      };
      const draw = (final: boolean) => {
        overall.update(name, done);
        const now = Date.now();
        if (!final && now - lastDraw < (stream.isTTY ? REDRAW_MS : LINE_EVERY_MS)) return;
        // A finished stage's plain line comes once, from finish().
        if (!final && !stream.isTTY && done >= total) return;
        lastDraw = now;
        stream.write(stream.isTTY ? `\r${line()}\x1b[K${final ? '\n' : ''}` : `${line()}\n`);
      };
      // The first line of a plain log comes after LINE_EVERY_MS (or at the end), not at once.
      if (!stream.isTTY) lastDraw = started;
      draw(false);
      return {
        tick(n = 1) {
          done += n;
          draw(false);
        },
        set(value) {
          done = value;
          draw(false);
        },
        finish() {
          draw(true);
          return Date.now() - started;
        },
      };
    },
  };
}

/** Discards progress (tests). */
export const silentProgress: Progress = { plan() {}, stage: () => ({ tick() {}, set() {}, finish: () => 0 }) };
