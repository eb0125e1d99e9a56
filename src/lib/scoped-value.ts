import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A value carried along the async calls of the work that set it. All of them share one AsyncLocalStorage, so that
 * work running under several values pays for one storage's bookkeeping.
 */
const storage = new AsyncLocalStorage<Readonly<Record<symbol, unknown>>>();

export class ScopedValue<T> {
  private readonly key: symbol;

  constructor(name: string) {
    this.key = Symbol(name);
  }

  /** Runs `fn` with this value set to `value`; the other values set around it stay as they are. */
  run<R>(value: T, fn: () => R): R {
    return storage.run({ ...storage.getStore(), [this.key]: value }, fn);
  }

  get(): T | undefined {
    return storage.getStore()?.[this.key] as T | undefined;
  }
}
