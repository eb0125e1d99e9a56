/**
 * Progress on stderr: a bar redrawn in place on a terminal, plain lines (every tenth and at
 * the end) otherwise, so that logs of a CI run stay readable.
 */
export interface Phase {
  /** Counts `n` more units done. */
  tick(n?: number): void;
  /** Sets the units done so far. */
  set(done: number): void;
  /** Prints the final line and returns the phase's duration in ms. */
  finish(): number;
}

export type Progress = (name: string, total: number) => Phase;

const WIDTH = 28;
const REDRAW_MS = 100;

const format = (n: number) => Math.round(n).toLocaleString('en-US');

export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  return (name, total) => {
    const started = Date.now();
    let done = 0;
    let lastDraw = 0;
    let lastTenth = 0;
    const line = () => {
      const share = total === 0 ? 1 : Math.min(1, done / total);
      const seconds = (Date.now() - started) / 1000;
      const rate = seconds > 0 ? done / seconds : 0;
      const filled = Math.round(share * WIDTH);
      return `${name.padEnd(9)} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${format(done)}/${format(total)} ${String(Math.floor(share * 100)).padStart(3)}%  ${format(rate)}/s  ${seconds.toFixed(1)}s`;
    };
    const draw = (final: boolean) => {
      if (stream.isTTY) {
        const now = Date.now();
        if (!final && now - lastDraw < REDRAW_MS) return;
        lastDraw = now;
        stream.write(`\r${line()}${final ? '\n' : ''}`);
        return;
      }
      const tenth = total === 0 ? 10 : Math.floor((done / total) * 10);
      if (final || (tenth > lastTenth && tenth < 10)) {
        lastTenth = tenth;
        stream.write(`${line()}\n`);
      }
    };
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
  };
}

/** Discards progress (tests). */
export const silentProgress: Progress = () => ({ tick() {}, set() {}, finish: () => 0 });
