import type { Task } from '../domain/tasks.js';

export interface ClaimedTask extends Task {
  /** Where the last run stopped (opaque to the queue), null when the task has not progressed. */
  checkpoint: string | null;
  /** How many times a worker has claimed the task, this claim included (graceful hand-backs too). */
  attempts: number;
  /** How many earlier runs failed with an error. */
  failures: number;
  /** The queue partition the task was claimed from; it stays there whatever QUEUE_SHARDS becomes. */
  shard: number;
  /** Identifies this claim: checkpoints and completion only succeed while the claim holds. */
  leaseToken: string;
}

/**
 * The durable task queue: a task is written with the change that needs it, claimed under a lease, and resumed
 * from its last checkpoint when a worker dies; steps are idempotent (see docs/architecture.md).
 */
export interface TaskQueue {
  enqueue(task: Task): Promise<void>;
  /** Claims up to `max` tasks that nobody holds (never claimed, released, or lease expired), oldest first. */
  claim(max: number, leaseMs: number): Promise<ClaimedTask[]>;
  /** Claims a task this process enqueued, by its key instead of a search; null when it is not free (taken, or done). */
  claimEnqueued(task: Task, leaseMs: number): Promise<ClaimedTask | null>;
  /** Saves progress and renews the lease; false when the claim was lost to another worker. */
  saveCheckpoint(task: ClaimedTask, checkpoint: string, leaseMs: number): Promise<boolean>;
  /** Removes the task, if the claim still holds. */
  complete(task: ClaimedTask): Promise<void>;
  /** Gives the task back, claimable again after `delayMs`; `failed` counts the run as a failure. */
  release(task: ClaimedTask, delayMs: number, failed: boolean): Promise<void>;
  /** Moves a task that keeps failing out of the queue into the dead-letter list, with the last error, if the claim still holds. */
  bury(task: ClaimedTask, error: string): Promise<void>;
}
