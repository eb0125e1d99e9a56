import { describe, expect, it } from 'vitest';
import { Passwords } from '../../src/auth/passwords.js';
import { loadConfig } from '../../src/config.js';

describe('password hashes', () => {
  it('use scrypt with N = 2^17, r = 8, p = 1 by default, a 16-byte salt and a 32-byte key', async () => {
    const passwords = new Passwords(loadConfig({}).passwordScryptLog2N);
    const hash = await passwords.hash('correct horse battery staple');
    expect(hash).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await passwords.verify('correct horse battery staple', hash)).toBe(true);
    expect(passwords.needsRehash(hash)).toBe(false);
  });

  it('verify only the password hashed, and say when a hash is weaker than new ones', async () => {
    const weak = new Passwords(10);
    const hash = await weak.hash('correct horse battery staple');
    expect(await weak.verify('correct horse battery stapler', hash)).toBe(false);
    expect(await weak.verify('Correct horse battery staple', hash)).toBe(false);
    // Unicode input is compared in NFC, the form a keyboard may or may not send.
    const composed = await weak.hash('caf\u00e9 au lait, s\u2019il vous pla\u00eet');
    expect(await weak.verify('cafe\u0301 au lait, s\u2019il vous pla\u00eet', composed)).toBe(true);
    const stronger = new Passwords(11);
    expect(await stronger.verify('correct horse battery staple', hash)).toBe(true);
    expect(stronger.needsRehash(hash)).toBe(true);
    expect(weak.needsRehash(hash)).toBe(false);
  });

  it('check a decoy when there is no hash, and never match it', async () => {
    const passwords = new Passwords(10);
    expect(await passwords.verify('', null)).toBe(false);
    expect(await passwords.verify('correct horse battery staple', null)).toBe(false);
  });
});
