import { ScopedValue } from './scoped-value.js';

/**
 * The deadline of the operation a piece of work runs for (OPERATION_TIMEOUT_MS), found through
 * AsyncLocalStorage: store clients hand it to their calls, so that calls still running when the
 * operation is answered without them are abandoned rather than left to finish for no one.
 */
const scope = new ScopedValue<AbortSignal>('deadline');

export function withDeadline<T>(signal: AbortSignal, fn: () => T): T {
  return scope.run(signal, fn);
}

/** The signal that aborts when the current operation's deadline passes; none outside an operation (the worker). */
export function currentDeadline(): AbortSignal | undefined {
  return scope.get();
}

/** The signals that are set, as one that aborts with the first of them. */
export function anySignal(signals: readonly (AbortSignal | undefined)[]): AbortSignal {
  const set = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  return set.length === 1 ? set[0]! : AbortSignal.any(set);
}

/** Rejects with `onTimeout()` when `promise` has not settled within `ms`; the timer never holds the process open. */
export function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
    timer.unref();
  });
  return Promise.race([promise, timedOut]).finally(() => clearTimeout(timer));
}
