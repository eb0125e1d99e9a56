import { newId } from '../domain/ids.js';
import type { Task, TaskPayload } from '../domain/tasks.js';
import type { TaskQueue } from '../stores/task-queue.js';
import type { FollowEvents } from './follow-events.js';

/**
 * The timeline side of follows: a follow or unfollow enqueues a durable task (`backfill`,
 * `unfollow`) that the worker runs with that kind's handler.
 */
export class FanOut implements FollowEvents {
  constructor(
    private readonly queue: TaskQueue,
    private readonly taskEnqueued: (task: Task) => void,
  ) {}

  async followed(followerId: string, followeeId: string): Promise<void> {
    await this.enqueue({ kind: 'backfill', followerId, followeeId });
  }

  async unfollowed(followerId: string, followeeId: string): Promise<void> {
    await this.enqueue({ kind: 'unfollow', followerId, followeeId });
  }

  private async enqueue(payload: TaskPayload): Promise<void> {
    const task = { id: newId('tsk'), payload };
    await this.queue.enqueue(task);
    this.taskEnqueued(task);
  }
}
