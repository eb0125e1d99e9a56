/**
 * The benchmark's one way of applying load: `connections` loops, each sending the next
 * operation when the previous one has answered, for a fixed time. The service's pages and
 * the storage floor are both measured with it, so both sides of a ratio are timed alike.
 */
import { performance } from 'node:perf_hooks';
import type { CpuMeter } from './cpu.js';

export interface Window {
  /** Round-trip times of the operations that succeeded, in ms. */
  latencies: number[];
  failures: number;
  elapsedMs: number;
  /** CPU ms spent by each measured process over the window (null where it cannot be read). */
  cpuMs: Map<string, number | null>;
}

export async function runLoops(
  connections: number,
  seconds: number,
  operation: () => Promise<void>,
  cpu: CpuMeter,
): Promise<Window> {
  const latencies: number[] = [];
  let failures = 0;
  const stopCpu = cpu.start();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const loop = async () => {
    while (performance.now() < end) {
      const started = performance.now();
      try {
        await operation();
        latencies.push(performance.now() - started);
      } catch {
        failures += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  const elapsedMs = performance.now() - t0;
  return { latencies, failures, elapsedMs, cpuMs: stopCpu() };
}

export const median = (xs: readonly number[]) => quantile(xs, 0.5);
export function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}
export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

export interface Summary {
  connections: number;
  operations: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
  /** CPU ms per successful operation, per process. */
  cpuMsPerOperation: Record<string, number | null>;
}

/** Pools the windows of one side of a comparison: all latencies, all operations over all the time measured. */
export function summarize(connections: number, windows: readonly Window[]): Summary {
  const latencies = windows.flatMap((w) => w.latencies);
  const elapsedMs = windows.reduce((sum, w) => sum + w.elapsedMs, 0);
  const cpu: Record<string, number | null> = {};
  for (const name of windows[0]?.cpuMs.keys() ?? []) {
    const spent = windows.map((w) => w.cpuMs.get(name) ?? null);
    cpu[name] =
      spent.some((ms) => ms === null) || latencies.length === 0
        ? null
        : round(spent.reduce((a, b) => a! + b!, 0)! / latencies.length, 2);
  }
  return {
    connections,
    operations: latencies.length,
    perSecond: round(latencies.length / (elapsedMs / 1000)),
    p50Ms: round(median(latencies), 2),
    p99Ms: round(quantile(latencies, 0.99), 2),
    failures: windows.reduce((sum, w) => sum + w.failures, 0),
    cpuMsPerOperation: cpu,
  };
}
