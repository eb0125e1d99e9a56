import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { TestApp } from './app.js';

const run = promisify(execFile);

/** `npm run <script>`'s file `scripts/<name>.ts` against the app's table, in a process of its own: its exit code and stdout. */
export async function runScript(
  t: TestApp,
  name: string,
  ...args: string[]
): Promise<{ code: number; output: string }> {
  const env = { ...process.env, DYNAMODB_ENDPOINT: t.endpoint, TABLE_PREFIX: t.tablePrefix, LOG_LEVEL: 'warn' };
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', `scripts/${name}.ts`, ...args], { env });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, output: failed.stdout };
  }
}
