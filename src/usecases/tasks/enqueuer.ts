import { newId } from '../../domain/ids.js';
import type { Task, TaskPayload } from '../../domain/tasks.js';
import type { TaskQueue } from '../../stores/task-queue.js';

/** Told of each task enqueued in this process; must not throw. */
export type TaskListener = (task: Task) => void;

/**
 * Where use cases hand background work over: `enqueue` writes a task alone, `written` announces tasks a store wrote
 * with the change that needs them. Listeners hear of both, so a worker in this process claims them at once.
 */
export class TaskEnqueuer {
  private readonly listeners: TaskListener[] = [];

  constructor(private readonly queue: Pick<TaskQueue, 'enqueue'>) {}

  async enqueue(payload: TaskPayload): Promise<void> {
    const task = { id: newId('tsk'), payload };
    await this.queue.enqueue(task);
    this.written([task]);
  }

  written(tasks: readonly Task[]): void {
    for (const task of tasks) for (const listener of this.listeners) listener(task);
  }

  onEnqueued(listener: TaskListener): void {
    this.listeners.push(listener);
  }
}
