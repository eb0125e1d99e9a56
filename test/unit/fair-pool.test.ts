import { afterEach, describe, expect, it, vi } from 'vitest';
import { FairPool, PoolRefused } from '../../src/lib/fair-pool.js';

/** Tasks that run until the test finishes them, recording the order they started in. */
function controlledTasks() {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  return {
    started,
    task: (name: string) => () =>
      new Promise<string>((resolve) => {
        started.push(name);
        finishers.set(name, () => resolve(name));
      }),
    async finish(name: string) {
      finishers.get(name)!();
      // Let the pool start the next task.
      await new Promise((r) => setImmediate(r));
    },
  };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof PoolRefused ? error.reason : error),
  );

afterEach(() => {
  vi.useRealTimers();
});

describe('the fair pool', () => {
  it('runs at most `concurrency` tasks and serves the waiting ones by key in turn, not in arrival order', async () => {
    const pool = new FairPool({ concurrency: 1, maxRunningPerKey: 1, maxQueuedPerKey: 10, maxWaitMs: 60_000 });
    const { started, task, finish } = controlledTasks();
    const done = [
      ...['a1', 'a2', 'a3', 'a4'].map((name) => pool.run('flooder', task(name))),
      pool.run('ada', task('ada1')),
      pool.run('bob', task('bob1')),
      pool.run('ada', task('ada2')),
    ];
    expect(started).toEqual(['a1']);
    for (const name of ['a1', 'ada1', 'bob1', 'a2', 'ada2', 'a3', 'a4']) {
      expect(started.at(-1)).toBe(name);
      await finish(name);
    }
    expect(started).toEqual(['a1', 'ada1', 'bob1', 'a2', 'ada2', 'a3', 'a4']);
    expect(await Promise.all(done)).toEqual(['a1', 'a2', 'a3', 'a4', 'ada1', 'bob1', 'ada2']);
  });

  it('keeps a slot free for another key: one key runs at most maxRunningPerKey tasks', async () => {
    const pool = new FairPool({ concurrency: 2, maxRunningPerKey: 1, maxQueuedPerKey: 10, maxWaitMs: 60_000 });
    const { started, task, finish } = controlledTasks();
    for (const name of ['a1', 'a2', 'a3']) void pool.run('flooder', task(name));
    expect(started).toEqual(['a1']);
    void pool.run('ada', task('ada1'));
    expect(started).toEqual(['a1', 'ada1']);
    await finish('ada1');
    expect(started).toEqual(['a1', 'ada1']);
    await finish('a1');
    expect(started).toEqual(['a1', 'ada1', 'a2']);
  });

  it('gives a free slot to the key with the fewest tasks running', async () => {
    const pool = new FairPool({ concurrency: 3, maxRunningPerKey: 2, maxQueuedPerKey: 10, maxWaitMs: 60_000 });
    const { started, task, finish } = controlledTasks();
    for (const name of ['a1', 'a2', 'a3']) void pool.run('flooder', task(name));
    for (const name of ['b1', 'b2']) void pool.run('bob', task(name));
    void pool.run('ada', task('ada1'));
    expect(started).toEqual(['a1', 'a2', 'b1']);
    // The flooder still runs a2 and bob b1: ada, running none, goes first...
    await finish('a1');
    expect(started.at(-1)).toBe('ada1');
    // ...and bob, running none now, before the flooder, running one.
    await finish('b1');
    expect(started.at(-1)).toBe('b2');
    await finish('a2');
    expect(started).toEqual(['a1', 'a2', 'b1', 'ada1', 'b2', 'a3']);
  });

  it("serves a key's waiting tasks by group, the group with the fewest running first, within the key's slots", async () => {
    const pool = new FairPool({ concurrency: 3, maxRunningPerKey: 2, maxQueuedPerKey: 10, maxWaitMs: 60_000 });
    const { started, task, finish } = controlledTasks();
    for (const name of ['big1', 'big2', 'big3', 'big4']) void pool.run('ada', task(name), undefined, 'big');
    for (const name of ['small1', 'small2']) void pool.run('ada', task(name), undefined, 'small');
    // Groups share their key's slots: the third stays free for another key.
    expect(started).toEqual(['big1', 'big2']);
    void pool.run('bob', task('bob1'));
    expect(started).toEqual(['big1', 'big2', 'bob1']);
    // ada's small group, none running, goes before the big group's backlog, queued first.
    for (const [done, next] of [
      ['big1', 'small1'],
      ['small1', 'small2'],
      ['big2', 'big3'],
      ['small2', 'big4'],
    ]) {
      await finish(done!);
      expect(started.at(-1)).toBe(next);
    }
  });

  it('serves groups running as many in the order their tasks came', async () => {
    const pool = new FairPool({ concurrency: 3, maxRunningPerKey: 3, maxQueuedPerKey: 10, maxWaitMs: 60_000 });
    const { started, task, finish } = controlledTasks();
    void pool.run('ada', task('big1'), undefined, 'big');
    void pool.run('ada', task('small1'), undefined, 'small');
    void pool.run('bob', task('bob1'));
    void pool.run('ada', task('big2'), undefined, 'big');
    void pool.run('ada', task('small2'), undefined, 'small');
    await finish('bob1');
    expect(started).toEqual(['big1', 'small1', 'bob1', 'big2']);
  });

  it('refuses a task past the waiting tasks one key may keep, and says so before it is sent', async () => {
    const pool = new FairPool({ concurrency: 1, maxRunningPerKey: 1, maxQueuedPerKey: 2, maxWaitMs: 60_000 });
    const { task, finish } = controlledTasks();
    void pool.run('flooder', task('a1'));
    expect(pool.hasRoom('flooder')).toBe(true);
    void pool.run('flooder', task('a2'));
    void pool.run('flooder', task('a3'));
    expect(pool.hasRoom('flooder')).toBe(false);
    expect(await refusal(pool.run('flooder', task('a4')))).toBe('queue full');
    expect(pool.hasRoom('ada')).toBe(true);
    await finish('a1');
    expect(pool.hasRoom('flooder')).toBe(true);
  });

  it('refuses a task that waited maxWaitMs for a slot, and serves the others on', async () => {
    vi.useFakeTimers();
    const pool = new FairPool({ concurrency: 1, maxRunningPerKey: 1, maxQueuedPerKey: 2, maxWaitMs: 5_000 });
    const { started, task, finish } = controlledTasks();
    void pool.run('a', task('a1'));
    const waited = refusal(pool.run('b', task('b1')));
    vi.advanceTimersByTime(4_000);
    const later = pool.run('c', task('c1'));
    vi.advanceTimersByTime(1_000);
    expect(await waited).toBe('timed out');
    vi.useRealTimers();
    await finish('a1');
    expect(started).toEqual(['a1', 'c1']);
    await finish('c1');
    expect(await later).toBe('c1');
  });

  it("takes a waiting task out of the queue when its signal aborts, with the signal's reason, and serves the others on", async () => {
    const pool = new FairPool({ concurrency: 1, maxRunningPerKey: 1, maxQueuedPerKey: 2, maxWaitMs: 60_000 });
    const { started, task, finish } = controlledTasks();
    void pool.run('a', task('a1'));
    const deadline = new AbortController();
    const abandoned = pool.run('b', task('b1'), deadline.signal).catch((error: unknown) => error);
    const later = pool.run('b', task('b2'));
    deadline.abort(new Error('deadline passed'));
    expect(await abandoned).toEqual(new Error('deadline passed'));
    await expect(pool.run('c', task('c1'), deadline.signal)).rejects.toThrow('deadline passed');
    await finish('a1');
    expect(started).toEqual(['a1', 'b2']);
    await finish('b2');
    expect(await later).toBe('b2');
  });

  it('frees the slot of a task that fails', async () => {
    const pool = new FairPool({ concurrency: 1, maxRunningPerKey: 1, maxQueuedPerKey: 1, maxWaitMs: 60_000 });
    const failing = pool.run('a', () => Promise.reject(new Error('scrypt failed')));
    const next = pool.run('b', async () => 'ran');
    await expect(failing).rejects.toThrow('scrypt failed');
    expect(await next).toBe('ran');
  });
});
