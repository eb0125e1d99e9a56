import { randomBytes } from 'node:crypto';
import { access, link, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from '../logger.js';

/** The file in DATA_DIR that keeps the generated secret. */
export const SECRET_FILE = 'jwt-secret';

const MIN_LENGTH = 32;

/**
 * The key tokens are signed with: JWT_SECRET when it is set; otherwise a random secret made on
 * the first start and kept in DATA_DIR, readable by its owner only, so that tokens survive a
 * restart and no two installations share a key anyone could look up.
 */
export async function signingSecret(options: { jwtSecret: string; dataDir: string; logger: Logger }): Promise<string> {
  if (options.jwtSecret !== '') return options.jwtSecret;
  const dir = resolve(options.dataDir);
  const path = join(dir, SECRET_FILE);
  await mkdir(dir, { recursive: true });
  const created = !(await exists(path)) && (await createOnce(path, randomBytes(32).toString('base64url')));
  const secret = (await readFile(path, 'utf8')).trim();
  if (secret.length < MIN_LENGTH) {
    throw new Error(
      `${path} holds a JWT secret of fewer than ${MIN_LENGTH} characters: delete the file to generate a new one, or set JWT_SECRET`,
    );
  }
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0)
    options.logger.warn('the generated JWT secret is readable by other users: chmod 600 it', { path });
  options.logger.info(
    created
      ? 'JWT_SECRET is not set: generated a signing secret'
      : 'JWT_SECRET is not set: signing with the secret generated earlier',
    { path },
  );
  return secret;
}

/**
 * Writes `content` to `path` unless the file exists; true when this call created it. The content
 * goes to a private temporary file that is then hard-linked into place, which fails if the file
 * exists: two processes starting at once end up with one secret, and neither reads a half-written file.
 */
async function createOnce(path: string, content: string): Promise<boolean> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, `${content}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temporary);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
