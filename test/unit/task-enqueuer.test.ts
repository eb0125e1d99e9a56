import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/domain/tasks.js';
import { TaskEnqueuer } from '../../src/usecases/tasks/enqueuer.js';

const backfill = { kind: 'backfill', followerId: 'usr_a', followeeId: 'usr_b' } as const;

describe('TaskEnqueuer', () => {
  it('writes a task to the queue, then tells every listener of it', async () => {
    const events: string[] = [];
    const enqueuer = new TaskEnqueuer({ enqueue: async (task) => void events.push(`queued ${task.payload.kind}`) });
    enqueuer.onEnqueued((task) => events.push(`first heard ${task.payload.kind}`));
    enqueuer.onEnqueued((task) => events.push(`second heard ${task.payload.kind}`));
    await enqueuer.enqueue(backfill);
    expect(events).toEqual(['queued backfill', 'first heard backfill', 'second heard backfill']);
  });

  it('gives each task a new task id', async () => {
    const queued: Task[] = [];
    const enqueuer = new TaskEnqueuer({ enqueue: async (task) => void queued.push(task) });
    await enqueuer.enqueue(backfill);
    await enqueuer.enqueue(backfill);
    expect(queued.map((task) => task.payload)).toEqual([backfill, backfill]);
    expect(queued[0]!.id).toMatch(/^tsk_/);
    expect(queued[1]!.id).not.toBe(queued[0]!.id);
  });

  it('tells no listener of a task the queue failed to write', async () => {
    const heard: Task[] = [];
    const enqueuer = new TaskEnqueuer({
      enqueue: async () => {
        throw new Error('the queue is down');
      },
    });
    enqueuer.onEnqueued((task) => heard.push(task));
    await expect(enqueuer.enqueue(backfill)).rejects.toThrow('the queue is down');
    expect(heard).toEqual([]);
  });

  it('tells the listeners of tasks a store wrote with a change, in order', () => {
    const heard: string[] = [];
    const enqueuer = new TaskEnqueuer({ enqueue: async () => {} });
    enqueuer.onEnqueued((task) => heard.push(task.id));
    enqueuer.written([
      { id: 'tsk_1', payload: backfill },
      { id: 'tsk_2', payload: { kind: 'unfollow', followerId: 'usr_a', followeeId: 'usr_b' } },
    ]);
    expect(heard).toEqual(['tsk_1', 'tsk_2']);
  });
});
