import { performance } from 'node:perf_hooks';
import { idTime } from '../domain/ids.js';
import { fanoutLag, taskKindLabel, taskRunDuration, taskWait, tasksRun, tasksRunning } from './metrics.js';
import { SpanKind, inSpan } from './tracing.js';

/** What observing a run needs of a claimed task: metrics do not depend on the queue's types. */
export interface ObservedTask {
  id: string;
  attempts: number;
  /** A fan-out names its post, whose id carries its creation time. */
  payload: { kind: string; postId?: string };
}

/** How a run of a task ended, as the worker saw it. */
export type TaskRunOutcome = 'done' | 'stopped' | 'lost' | 'deferred' | 'failed' | 'dead_lettered';

export interface ObservedTaskRun {
  /** Runs the task's work in its span (a trace of its own) when tracing is on. */
  inSpan<T>(run: () => Promise<T>): Promise<T>;
  ended(outcome: TaskRunOutcome): void;
}

/**
 * Observes one run of a claimed task: outcome and duration, the wait since enqueueing on its first claim, and a
 * finished fan-out's lag from the post's creation (both read from the time-ordered ids).
 */
export function observeTaskRun(task: ObservedTask): ObservedTaskRun {
  const kind = taskKindLabel(task.payload.kind);
  const started = performance.now();
  if (task.attempts === 1) taskWait.observe({ kind }, Math.max(0, Date.now() - idTime(task.id)) / 1000);
  tasksRunning.inc();
  let open = true;
  return {
    inSpan: (run) =>
      inSpan(
        `task ${kind}`,
        {
          kind: SpanKind.CONSUMER,
          root: true,
          attributes: { 'task.id': task.id, 'task.kind': kind, 'task.attempts': task.attempts },
        },
        run,
      ),
    ended(outcome) {
      if (!open) return;
      open = false;
      tasksRunning.dec();
      tasksRun.inc({ kind, outcome });
      taskRunDuration.observe({ kind }, (performance.now() - started) / 1000);
      const { payload } = task;
      if (outcome === 'done' && payload.kind === 'fanOut' && payload.postId !== undefined)
        fanoutLag.observe(Math.max(0, Date.now() - idTime(payload.postId)) / 1000);
    },
  };
}
