import type { Logger } from '../logger.js';
import { observeTaskRun } from '../observability/tasks.js';
import type { Task } from '../domain/tasks.js';
import type { ClaimedTask, TaskQueue } from '../stores/task-queue.js';
import type { TaskRunner } from '../usecases/tasks/task-handler.js';

export interface WorkerSettings {
  pollMs: number;
  leaseMs: number;
  concurrency: number;
  /** Failed runs after which a task goes to the dead-letter list instead of being retried. */
  maxAttempts: number;
}

/** Retry delay after a failed run: exponential in the attempts, with full jitter, capped at a minute. */
function retryDelay(attempts: number): number {
  return Math.random() * Math.min(60_000, 500 * 2 ** attempts);
}

const MAX_QUEUE_BACKOFF_MS = 30_000;

/**
 * Wait after the queue failed `failures` times in a row (its store is down): the poll interval,
 * doubled with each failure up to 30 s, less up to half of it at random so that many workers
 * do not all come back at once.
 */
function queueBackoff(pollMs: number, failures: number): number {
  const ceiling = Math.min(MAX_QUEUE_BACKOFF_MS, pollMs * 2 ** (failures - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/**
 * Claims tasks from the durable queue and runs a few at a time. `nudge` wakes it and claims a task by key, so
 * a task of this process skips the poll. Stopping hands running tasks back at their next checkpoint.
 */
export class Worker {
  private stopping = false;
  private readonly running = new Set<Promise<void>>();
  private wake: (() => void) | null = null;
  private nudged = false;
  /** Tasks enqueued in this process and not claimed yet, oldest first. */
  private readonly enqueued: Task[] = [];
  private loop: Promise<void> | null = null;
  private queueFailures = 0;

  constructor(
    private readonly queue: TaskQueue,
    private readonly runner: TaskRunner,
    private readonly settings: WorkerSettings,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  nudge(task?: Task): void {
    if (task) this.enqueued.push(task);
    this.nudged = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.nudge();
    await this.loop;
    await Promise.all(this.running);
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      const free = this.settings.concurrency - this.running.size;
      let claimed: ClaimedTask[] = [];
      let handedOver = false;
      if (free > 0) {
        try {
          const enqueued = this.enqueued.splice(0, free);
          handedOver = enqueued.length > 0;
          // A task enqueued here is claimed by its key; the queue is searched at the next poll or nudge
          // (and finds the handed-over tasks too if these claims failed: they are in the durable queue).
          claimed = handedOver
            ? (await Promise.all(enqueued.map((task) => this.queue.claimEnqueued(task, this.settings.leaseMs)))).filter(
                (task) => task !== null,
              )
            : await this.queue.claim(free, this.settings.leaseMs);
          if (this.queueFailures > 0) this.logger.info('task queue answers again', { failures: this.queueFailures });
          this.queueFailures = 0;
        } catch (error) {
          // The store is down: back off rather than fail (and log) at every poll.
          this.queueFailures += 1;
          const retryInMs = queueBackoff(this.settings.pollMs, this.queueFailures);
          this.logger.error('could not claim tasks', { error, failures: this.queueFailures, retryInMs });
          await this.idle(retryInMs);
          continue;
        }
      }
      for (const task of claimed) {
        const running = this.process(task).finally(() => {
          this.running.delete(running);
          this.nudge();
        });
        this.running.add(running);
      }
      // Straight on while slots are free and tasks may be waiting: handed-over ones, or more than a search claimed.
      const mayBeWaiting = this.enqueued.length > 0 || (!handedOver && claimed.length > 0);
      if (claimed.length === free || !mayBeWaiting) await this.idle(this.settings.pollMs);
    }
  }

  /** Waits `ms`, for a nudge, or for a task to finish; returns at once if one came while busy. */
  private idle(ms: number): Promise<void> {
    if (this.nudged || this.stopping) {
      this.nudged = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        this.nudged = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private async process(task: ClaimedTask): Promise<void> {
    const log = this.logger.child({ taskId: task.id, kind: task.payload.kind });
    log.debug('task claimed', { attempts: task.attempts, checkpoint: task.checkpoint });
    const observed = observeTaskRun(task);
    try {
      const outcome = await observed.inSpan(() =>
        this.runner.run(
          task,
          async (checkpoint) => {
            const held = await this.queue.saveCheckpoint(task, checkpoint, this.settings.leaseMs);
            log.debug('task checkpoint', { checkpoint, held });
            return held;
          },
          () => this.stopping,
        ),
      );
      observed.ended(typeof outcome === 'object' ? 'deferred' : outcome);
      if (outcome === 'done') await this.queue.complete(task);
      if (outcome === 'stopped') await this.queue.release(task, 0, false);
      if (typeof outcome === 'object') await this.queue.release(task, outcome.laterMs, false);
      log.debug('task ended', { outcome });
    } catch (error) {
      const failures = task.failures + 1;
      const giveUp = failures >= this.settings.maxAttempts;
      observed.ended(giveUp ? 'dead_lettered' : 'failed');
      log.error(giveUp ? 'task failed for the last time: moved to the dead-letter list' : 'task failed', {
        error,
        failures,
      });
      const settle = giveUp
        ? this.queue.bury(task, String(error))
        : this.queue.release(task, retryDelay(failures), true);
      await settle.catch((settleError: unknown) => {
        log.error('could not give the task back', { error: settleError });
      });
    }
  }
}
