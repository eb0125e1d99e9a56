import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SETTINGS } from '../../src/config.js';
import type { TestApp } from './app.js';

const run = promisify(execFile);
const SETTING_NAMES = new Set<string>(Object.values(SETTINGS).map((setting) => setting.name));

export interface ScriptRun {
  code: number;
  output: string;
  errors: string;
}

/** The environment for a script's process: this one's, with `settings` in place of the service's settings. */
export function scriptEnv(settings: Record<string, string>): Record<string, string | undefined> {
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !SETTING_NAMES.has(key))),
    ...settings,
  };
}

/**
 * `scripts/<name>.ts` in a process of its own, with `settings` as its only settings: test apps take none from the
 * environment either, so a script never reads another table or a graph (NEO4J_URI) than the test gave it.
 */
export async function runScriptWith(
  settings: Record<string, string>,
  name: string,
  ...args: string[]
): Promise<ScriptRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', `scripts/${name}.ts`, ...args], {
      env: scriptEnv(settings),
    });
    return { code: 0, output: stdout, errors: stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout, errors: failed.stderr };
  }
}

const appSettings = (t: TestApp) => ({ DYNAMODB_ENDPOINT: t.endpoint, TABLE_PREFIX: t.tablePrefix, LOG_LEVEL: 'warn' });

/** `npm run <script>`'s file `scripts/<name>.ts` against the app's table: its exit code and stdout. */
export async function runScript(
  t: TestApp,
  name: string,
  ...args: string[]
): Promise<{ code: number; output: string }> {
  const { code, output } = await runScriptWith(appSettings(t), name, ...args);
  return { code, output };
}

/** The stdout of a script run against the app's table that must succeed: a failing one fails the test with its stderr. */
export async function scriptOutput(t: TestApp, name: string, ...args: string[]): Promise<string> {
  const { code, output, errors } = await runScriptWith(appSettings(t), name, ...args);
  if (code !== 0) throw new Error(`scripts/${name}.ts exited ${code}: ${errors}${output}`);
  return output;
}
