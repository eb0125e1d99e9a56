import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TaskQueue } from '../../src/stores/task-queue.js';
import type { TaskRunner } from '../../src/usecases/tasks/task-handler.js';
import { Worker } from '../../src/worker/worker.js';
import { capturingLogger } from '../helpers/app.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A queue whose store is down until `recover()`; it only answers claims (with no tasks). */
function queueDownUntilRecovered() {
  let down = true;
  let claims = 0;
  const queue = {
    async claim() {
      claims += 1;
      if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:8000');
      return [];
    },
  } as unknown as TaskQueue;
  return { queue, claims: () => claims, recover: () => (down = false) };
}

describe('worker', () => {
  it('backs off while its queue does not answer, and polls as usual once it does', async () => {
    vi.useFakeTimers();
    const POLL_MS = 1_000;
    const { queue, claims, recover } = queueDownUntilRecovered();
    const logger = capturingLogger();
    const worker = new Worker(
      queue,
      {} as TaskRunner,
      { pollMs: POLL_MS, leaseMs: 30_000, concurrency: 4, maxAttempts: 10 },
      logger,
    );
    worker.start();

    // A minute of outage: waits of 1, 2, 4, 8, 16, 30 s (less up to half at random), not one claim a second.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(claims()).toBeGreaterThanOrEqual(6);
    expect(claims()).toBeLessThanOrEqual(9);
    const failures = logger.entries.filter((entry) => entry.msg === 'could not claim tasks');
    expect(failures).toHaveLength(claims());
    expect(failures.map((entry) => entry.fields.failures)).toEqual(failures.map((_, i) => i + 1));
    // Never more than 30 s apart, however long the outage.
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(
      logger.entries
        .filter((entry) => entry.msg === 'could not claim tasks')
        .every((entry) => (entry.fields.retryInMs as number) <= 30_000),
    ).toBe(true);

    recover();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(logger.entries.map((entry) => entry.msg)).toContain('task queue answers again');
    const afterRecovery = claims();
    await vi.advanceTimersByTimeAsync(10 * POLL_MS);
    expect(claims() - afterRecovery).toBe(10);

    const stopped = worker.stop();
    await vi.advanceTimersByTimeAsync(POLL_MS);
    await stopped;
  });
});
