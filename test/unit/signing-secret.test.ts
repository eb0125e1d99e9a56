import { mkdtempSync, rmSync, statSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SECRET_FILE, signingSecret } from '../../src/auth/signing-secret.js';
import type { Logger } from '../../src/logger.js';

const root = mkdtempSync(join(tmpdir(), 'signing-secret-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function recordingLogger() {
  const lines: string[] = [];
  const logger: Logger = {
    debug: (msg) => lines.push(`debug ${msg}`),
    info: (msg) => lines.push(`info ${msg}`),
    warn: (msg) => lines.push(`warn ${msg}`),
    error: (msg) => lines.push(`error ${msg}`),
    child: () => logger,
  };
  return { logger, lines };
}

describe('the signing secret', () => {
  it('is JWT_SECRET when set, and then nothing is written', async () => {
    const dataDir = join(root, 'given');
    const { logger, lines } = recordingLogger();
    expect(await signingSecret({ jwtSecret: 's'.repeat(32), dataDir, logger })).toBe('s'.repeat(32));
    expect(existsSync(dataDir)).toBe(false);
    expect(lines).toEqual([]);
  });

  it('is generated on first start into DATA_DIR, readable by its owner only, says so once, and is reused on the next start', async () => {
    const dataDir = join(root, 'fresh', 'nested');
    const first = recordingLogger();
    const secret = await signingSecret({ jwtSecret: '', dataDir, logger: first.logger });
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(dataDir, SECRET_FILE)).mode & 0o777).toBe(0o600);
    expect(first.lines).toEqual(['info JWT_SECRET is not set: generated a signing secret']);

    const next = recordingLogger();
    expect(await signingSecret({ jwtSecret: '', dataDir, logger: next.logger })).toBe(secret);
    expect(next.lines).toEqual(['info JWT_SECRET is not set: signing with the secret generated earlier']);
    expect(await signingSecret({ jwtSecret: '', dataDir: join(root, 'elsewhere'), logger: next.logger })).not.toBe(
      secret,
    );
  });

  it('is one secret when several processes start at once on an empty DATA_DIR', async () => {
    const dataDir = join(root, 'race');
    const { logger, lines } = recordingLogger();
    const secrets = await Promise.all(
      Array.from({ length: 8 }, () => signingSecret({ jwtSecret: '', dataDir, logger })),
    );
    expect(new Set(secrets).size).toBe(1);
    expect(lines.filter((line) => line.includes('generated a signing secret'))).toHaveLength(1);
  });

  it('refuses a secret file that holds too short a secret', async () => {
    const dataDir = join(root, 'short');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, SECRET_FILE), 'short\n', { mode: 0o600 });
    await expect(signingSecret({ jwtSecret: '', dataDir, logger: recordingLogger().logger })).rejects.toThrow(
      /fewer than 32 characters/,
    );
  });
});
