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

/**
 * A signal that aborts after `ms` (with a TimeoutError) or with the first of `parents` to abort. `release()` when the
 * call is over: its timer and listeners go with it, where AbortSignal.timeout would fire later for nobody.
 */
export function signalWithin(ms: number, parents: readonly (AbortSignal | undefined)[]) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`No answer within ${ms} ms`, 'TimeoutError'));
  }, ms);
  timer.unref();
  const set = parents.filter((signal): signal is AbortSignal => signal !== undefined);
  const follow = (event: Event) => controller.abort((event.target as AbortSignal).reason);
  for (const parent of set) {
    if (parent.aborted) controller.abort(parent.reason);
    else parent.addEventListener('abort', follow, { once: true });
  }
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    release() {
      clearTimeout(timer);
      for (const parent of set) parent.removeEventListener('abort', follow);
    },
  };
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
