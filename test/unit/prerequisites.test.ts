import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findChromium } from '../helpers/chromium.js';

/** The suite runs in a clone that has only the README's prerequisites. */
const root = mkdtempSync(join(tmpdir(), 'chromium-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function dirWith(name: string, files: Record<string, boolean>): string {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const [file, isExecutable] of Object.entries(files)) {
    writeFileSync(join(dir, file), '#!/bin/sh\n');
    chmodSync(join(dir, file), isExecutable ? 0o755 : 0o644);
  }
  return dir;
}

describe('findChromium', () => {
  it('finds Chromium on PATH under any of its usual names, preferring "chromium"', () => {
    const ubuntu = dirWith('ubuntu', { 'chromium-browser': true });
    const chrome = dirWith('chrome', { 'google-chrome': true });
    const debian = dirWith('debian', { chromium: true });
    expect(findChromium({ PATH: [root, ubuntu].join(':') })).toBe(join(ubuntu, 'chromium-browser'));
    expect(findChromium({ PATH: [chrome, ubuntu, debian].join(':') })).toBe(join(debian, 'chromium'));
  });

  it('skips files that are not executable', () => {
    const notExecutable = dirWith('plain', { chromium: false });
    const chrome = dirWith('chrome-only', { 'google-chrome': true });
    expect(findChromium({ PATH: [notExecutable, chrome].join(':') })).toBe(join(chrome, 'google-chrome'));
  });

  it('takes CHROMIUM_PATH over PATH, and says so when it is not executable', () => {
    const custom = dirWith('custom', { 'my-chromium': true, broken: false });
    const debian = dirWith('debian-too', { chromium: true });
    expect(findChromium({ PATH: debian, CHROMIUM_PATH: join(custom, 'my-chromium') })).toBe(
      join(custom, 'my-chromium'),
    );
    expect(() => findChromium({ PATH: debian, CHROMIUM_PATH: join(custom, 'broken') })).toThrow(
      /CHROMIUM_PATH is .*broken, which is not an executable file/,
    );
  });

  it('fails with what to install when there is none', () => {
    expect(() => findChromium({ PATH: dirWith('empty', {}) })).toThrow(
      /need Chromium .*apt-get install chromium.*CHROMIUM_PATH/,
    );
  });
});

describe('the test suite', () => {
  it('never reaches into the shared directory beside the project, which a clone does not have (.ci/run checks the contract)', () => {
    const sibling = `..${'/'}shared`;
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.(ts|mjs|js|json)$/.test(entry) && readFileSync(path, 'utf8').includes(sibling))
          offenders.push(path);
      }
    };
    for (const dir of ['src', 'test', 'scripts', 'bench']) walk(dir);
    expect(offenders).toEqual([]);
  });
});
