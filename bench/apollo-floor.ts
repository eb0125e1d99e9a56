/** Starts bench/apollo-floor-server.ts in its own process, answering every request with `answer`. */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './service.js';

export interface ApolloFloor {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startApolloFloor(answer: unknown): Promise<ApolloFloor> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/apollo-floor-server.ts')], {
    cwd: ROOT,
    env: { ...process.env, PAGE_ANSWER: JSON.stringify(answer) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((listening, failed) => {
    child.stdout!.once('data', (line: Buffer) => listening(line.toString().trim()));
    child.once('exit', (code) => failed(new Error(`the Apollo floor exited during start-up (code ${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: () =>
      new Promise<void>((stopped) => {
        if (child.exitCode !== null) return stopped();
        child.once('exit', () => stopped());
        child.kill('SIGTERM');
      }),
  };
}
