export interface FairPoolSettings {
  /** Tasks running at once. */
  concurrency: number;
  /** Tasks one key may have running at once; below `concurrency`, a slot stays free for the next key. */
  maxRunningPerKey: number;
  /** Tasks one key may have waiting; the next is refused at once. */
  maxQueuedPerKey: number;
  /** Longest a task waits for a slot; then it is refused. */
  maxWaitMs: number;
}

/** A task the pool would not run: its key had `maxQueuedPerKey` waiting already, or it waited `maxWaitMs` in vain. */
export class PoolRefused extends Error {
  constructor(readonly reason: 'queue full' | 'timed out') {
    super(`pool refused the task: ${reason}`);
    this.name = 'PoolRefused';
  }
}

interface Waiting {
  /** Its place in the order tasks came in. */
  seq: number;
  start(): void;
  timer: NodeJS.Timeout;
}

/** A key's waiting tasks, a queue per group. */
interface KeyQueue {
  groups: Map<string, Waiting[]>;
  size: number;
}

/**
 * Runs at most `concurrency` tasks, at most `maxRunningPerKey` of one key; a free slot goes to the key with the
 * fewest running, then round-robin, so one key's backlog never stands in front of another's task. Within a key, it
 * goes to the task whose group (the key itself unless given) has the fewest running, then the first to come.
 */
export class FairPool {
  private running = 0;
  private readonly runningByKey = new Map<string, number>();
  private readonly runningByGroup = new Map<string, number>();
  /** When each key last had a task started (a sequence number); keys not served yet count as 0. */
  private readonly lastServed = new Map<string, number>();
  private served = 0;
  private queued = 0;
  private readonly waiting = new Map<string, KeyQueue>();

  constructor(private readonly settings: FairPoolSettings) {}

  /** Whether a task of `key` would be run or queued now rather than refused. */
  hasRoom(key: string): boolean {
    return this.canStart(key) || (this.waiting.get(key)?.size ?? 0) < this.settings.maxQueuedPerKey;
  }

  /**
   * Runs `task` when a slot is free to `key`; while it waits, `signal` aborting takes it out of the queue. `group`
   * orders the key's waiting tasks; a group's tasks are counted together whatever their key, so give it one key.
   */
  run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal, group = key): Promise<T> {
    // Tasks wait only while no slot is free to them, so the tasks waiting now are of other keys.
    if (this.canStart(key)) return this.start(key, group, task);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const queue = this.waiting.get(key) ?? { groups: new Map<string, Waiting[]>(), size: 0 };
    if (queue.size >= this.settings.maxQueuedPerKey) return Promise.reject(new PoolRefused('queue full'));
    return new Promise<T>((resolve, reject) => {
      const leave = (reason: unknown) => {
        clearTimeout(entry.timer);
        signal?.removeEventListener('abort', aborted);
        const tasks = queue.groups.get(group)!;
        tasks.splice(tasks.indexOf(entry), 1);
        this.dequeued(key, queue, group, tasks);
        this.forgetIfIdle(key);
        reject(reason);
      };
      const aborted = () => leave(signal!.reason);
      const entry: Waiting = {
        seq: ++this.queued,
        start: () => {
          clearTimeout(entry.timer);
          signal?.removeEventListener('abort', aborted);
          this.start(key, group, task).then(resolve, reject);
        },
        timer: setTimeout(() => leave(new PoolRefused('timed out')), this.settings.maxWaitMs),
      };
      signal?.addEventListener('abort', aborted, { once: true });
      const tasks = queue.groups.get(group) ?? [];
      tasks.push(entry);
      queue.groups.set(group, tasks);
      queue.size += 1;
      this.waiting.set(key, queue);
    });
  }

  private async start<T>(key: string, group: string, task: () => Promise<T>): Promise<T> {
    this.running += 1;
    count(this.runningByKey, key, 1);
    count(this.runningByGroup, group, 1);
    this.lastServed.set(key, ++this.served);
    try {
      return await task();
    } finally {
      this.running -= 1;
      count(this.runningByKey, key, -1);
      count(this.runningByGroup, group, -1);
      this.forgetIfIdle(key);
      this.startWaiting();
    }
  }

  /** Keeps what the pool knows of keys to those with tasks running or waiting. */
  private forgetIfIdle(key: string): void {
    if (!this.runningByKey.has(key) && !this.waiting.has(key)) this.lastServed.delete(key);
  }

  private canStart(key: string): boolean {
    return (
      this.running < this.settings.concurrency && (this.runningByKey.get(key) ?? 0) < this.settings.maxRunningPerKey
    );
  }

  private startWaiting(): void {
    while (this.running < this.settings.concurrency) {
      let next: string | undefined;
      for (const key of this.waiting.keys()) {
        if (this.canStart(key) && (next === undefined || this.before(key, next))) next = key;
      }
      if (next === undefined) return;
      const queue = this.waiting.get(next)!;
      const group = this.nextGroup(queue);
      const tasks = queue.groups.get(group)!;
      const entry = tasks.shift()!;
      this.dequeued(next, queue, group, tasks);
      entry.start();
    }
  }

  /** The group of a key's queue with the fewest tasks running, then the one whose next task came first. */
  private nextGroup(queue: KeyQueue): string {
    let next: string | undefined;
    let nextRunning = 0;
    for (const [group, tasks] of queue.groups) {
      const running = this.runningByGroup.get(group) ?? 0;
      if (
        next === undefined ||
        running < nextRunning ||
        (running === nextRunning && tasks[0]!.seq < queue.groups.get(next)![0]!.seq)
      )
        [next, nextRunning] = [group, running];
    }
    return next!;
  }

  private dequeued(key: string, queue: KeyQueue, group: string, tasks: readonly Waiting[]): void {
    queue.size -= 1;
    if (tasks.length === 0) queue.groups.delete(group);
    if (queue.size === 0) this.waiting.delete(key);
  }

  /** Whether `a` is to be served before `b`: fewer tasks running, then served less recently. */
  private before(a: string, b: string): boolean {
    const running = (this.runningByKey.get(a) ?? 0) - (this.runningByKey.get(b) ?? 0);
    return running !== 0 ? running < 0 : (this.lastServed.get(a) ?? 0) < (this.lastServed.get(b) ?? 0);
  }
}

/** Adds `by` to `key`'s count, keeping only counts above zero. */
function count(counts: Map<string, number>, key: string, by: 1 | -1): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n === 0) counts.delete(key);
  else counts.set(key, n);
}
