import type { PayloadOf, TaskKind } from '../../domain/tasks.js';
import type { ClaimedTask } from '../../stores/task-queue.js';

/** Saves the task's position and renews its lease; false when another worker has taken the task over. */
export type SaveCheckpoint = (checkpoint: string) => Promise<boolean>;

/**
 * How a run ended: finished, interrupted by a stopping worker (resumable), the lease was lost, or not due yet: to run
 * again from its saved checkpoint `laterMs` from now.
 */
export type RunOutcome = 'done' | 'stopped' | 'lost' | { laterMs: number };

/** One run of a claimed task: where it stopped last, how to save progress, and whether the worker is stopping. */
export interface TaskRun<K extends TaskKind = TaskKind> {
  payload: PayloadOf<K>;
  /** Null on the first run; otherwise what the last run saved. */
  checkpoint: string | null;
  save: SaveCheckpoint;
  stopping: () => boolean;
}

/**
 * The work behind one kind of durable task. A run is idempotent from any checkpoint: a step
 * repeated after a crash or a redelivery leaves the data as if it had run once.
 */
export interface TaskHandler<K extends TaskKind = TaskKind> {
  readonly kind: K;
  run(run: TaskRun<K>): Promise<RunOutcome>;
}

/** What the worker runs: one claimed task, by its kind's handler. */
export interface TaskRunner {
  run(task: ClaimedTask, save: SaveCheckpoint, stopping: () => boolean): Promise<RunOutcome>;
}
