import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { Task } from '../../src/domain/tasks.js';
import type { ClaimedTask, TaskQueue } from '../../src/stores/task-queue.js';
import type { TaskRunner } from '../../src/usecases/tasks/task-handler.js';
import { Worker } from '../../src/worker/worker.js';

/** The worker's scheduling against a queue that records what it is asked; the tasks run instantly unless held. */
function recordingQueue() {
  const calls: string[] = [];
  const claimed = (task: Task): ClaimedTask => ({
    ...task,
    checkpoint: null,
    attempts: 1,
    failures: 0,
    shard: 0,
    leaseToken: 'lease',
  });
  const queue = {
    claim: async () => (calls.push('search'), []),
    claimEnqueued: async (task: Task) => (calls.push(`claim ${task.id}`), claimed(task)),
    complete: async (task: ClaimedTask) => void calls.push(`complete ${task.id}`),
  } as unknown as TaskQueue;
  return { calls, queue };
}

const task = (id: string): Task => ({ id, payload: { kind: 'backfill', followerId: 'usr_a', followeeId: 'usr_b' } });

describe('worker', () => {
  it('claims a task enqueued in its process by its key, without searching the queue, and searches again once it is done', async () => {
    const { calls, queue } = recordingQueue();
    const fanOut = { run: async () => 'done' } as unknown as TaskRunner;
    const worker = new Worker(
      queue,
      fanOut,
      { pollMs: 60_000, leaseMs: 1000, concurrency: 2, maxAttempts: 3 },
      createLogger('silent'),
    );
    worker.start();
    await vi.waitFor(() => expect(calls).toEqual(['search']));
    worker.nudge(task('tsk_1'));
    await vi.waitFor(() => expect(calls).toEqual(['search', 'claim tsk_1', 'complete tsk_1', 'search']));
    await worker.stop();
  });

  it('keeps a task handed over while every slot is busy until one is free', async () => {
    const { calls, queue } = recordingQueue();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const fanOut = {
      run: async (t: ClaimedTask) => (t.id === 'tsk_1' ? held.then(() => 'done' as const) : 'done'),
    } as unknown as TaskRunner;
    const worker = new Worker(
      queue,
      fanOut,
      { pollMs: 60_000, leaseMs: 1000, concurrency: 1, maxAttempts: 3 },
      createLogger('silent'),
    );
    worker.start();
    worker.nudge(task('tsk_1'));
    await vi.waitFor(() => expect(calls).toContain('claim tsk_1'));
    worker.nudge(task('tsk_2'));
    worker.nudge(task('tsk_3'));
    release();
    await vi.waitFor(() => expect(calls).toContain('complete tsk_3'));
    expect(calls.filter((c) => c !== 'search')).toEqual([
      'claim tsk_1',
      'complete tsk_1',
      'claim tsk_2',
      'complete tsk_2',
      'claim tsk_3',
      'complete tsk_3',
    ]);
    await worker.stop();
  });
});
