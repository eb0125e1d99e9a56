/** Starts bench/apollo-floor-server.ts in its own process, answering every request with `input.answer`. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { FloorInput } from './apollo-floor-server.js';
import { ROOT, type Service, builtBenchProcess } from './service.js';

const STARTUP_TIMEOUT_MS = 60_000;

/** Stop it with stopService, as the services. */
export async function startApolloFloor(input: FloorInput): Promise<Service> {
  const schema = join(ROOT, 'schema.graphql');
  const child = spawn(process.execPath, [builtBenchProcess('apollo-floor-server'), schema], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdin!.end(JSON.stringify(input));
  try {
    const port = await new Promise<string>((listening, failed) => {
      const timer = setTimeout(
        () => failed(new Error('the Apollo floor did not start within 60s')),
        STARTUP_TIMEOUT_MS,
      );
      child.stdout!.once('data', (line: Buffer) => {
        clearTimeout(timer);
        listening(line.toString().trim());
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        failed(new Error(`the Apollo floor exited during start-up (code ${code})`));
      });
    });
    return { url: `http://127.0.0.1:${port}`, child };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}
