import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The names Chromium goes by on PATH in Linux distributions, in order of preference. */
export const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Chromium the browser tests drive: `CHROMIUM_PATH` when set, else the first of
 * CHROMIUM_NAMES on `PATH`. Throws a message that says what to install when there is none.
 */
export function findChromium(env: Record<string, string | undefined> = process.env): string {
  const configured = env.CHROMIUM_PATH;
  if (configured) {
    if (!executable(configured)) throw new Error(`CHROMIUM_PATH is ${configured}, which is not an executable file.`);
    return configured;
  }
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const name of CHROMIUM_NAMES) {
    for (const dir of dirs) {
      const candidate = join(dir, name);
      if (executable(candidate)) return candidate;
    }
  }
  throw new Error(
    `The browser tests need Chromium (see the README's prerequisites): none of ${CHROMIUM_NAMES.join(', ')} is on PATH. ` +
      'Install it (Debian/Ubuntu: apt-get install chromium) or set CHROMIUM_PATH to its executable.',
  );
}
