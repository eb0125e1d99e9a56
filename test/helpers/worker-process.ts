import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { TestApp } from './app.js';

/** `npm run worker`'s (or `npm start`'s) entry point as its own process, so that a test can kill it mid-task. */
export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves with the first log line that `matches` accepts, seen already or still to come. */
  logLine(matches: (entry: Record<string, any>) => boolean): Promise<Record<string, any>>;
  exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();

/**
 * Starts a worker process against the app's table, logging at debug so that tests can follow its steps; `entry`
 * `dist/worker-main.js` runs the compiled worker (`npm run worker:built`) once `npm run build` has made it.
 */
export function startWorkerProcess(
  app: TestApp,
  env: Record<string, string>,
  entry = 'src/worker-main.ts',
): WorkerProcess {
  // Metrics on a free port: several workers may run at once.
  return startProcess(entry, app, { WORKER_METRICS_PORT: '0', ...env });
}

/** `npm start`'s entry point as its own process (another API instance) against the app's table, on a free port. */
export async function startApiProcess(
  app: TestApp,
  env: Record<string, string>,
): Promise<WorkerProcess & { url: string }> {
  const api = startProcess('src/main.ts', app, { PORT: '0', HOST: '127.0.0.1', ...env });
  const listening = await Promise.race([
    api.logLine((entry) => entry.msg === 'listening'),
    api.exited.then((code) => Promise.reject(new Error(`the API process exited with ${code} before listening`))),
  ]);
  return { ...api, url: new URL(listening.graphql).origin };
}

function startProcess(entry: string, app: TestApp, env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, [...(entry.endsWith('.ts') ? ['--import', 'tsx'] : []), entry], {
    env: { ...process.env, DYNAMODB_ENDPOINT: app.endpoint, TABLE_PREFIX: app.tablePrefix, LOG_LEVEL: 'debug', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.add(child);
  const entries: Record<string, any>[] = [];
  const waiters: { matches: (entry: Record<string, any>) => boolean; resolve: (entry: Record<string, any>) => void }[] =
    [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    let entry: Record<string, any>;
    try {
      entry = JSON.parse(line);
    } catch {
      return;
    }
    entries.push(entry);
    for (const waiter of [...waiters]) {
      if (waiter.matches(entry)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(entry);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return {
    child,
    exited,
    logLine: (matches) => {
      const seen = entries.find(matches);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ matches, resolve }));
    },
  };
}

/** Kills every worker or API process a test left running (for afterAll). */
export function killWorkerProcesses(): void {
  for (const child of running) child.kill('SIGKILL');
}
