import { mkdirSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { findChromium } from '../helpers/chromium.js';

const ARTIFACTS = 'test-artifacts';

let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  // Fails with what to install rather than skipping: Chromium is a prerequisite of the test suite.
  const executablePath = findChromium();
  t = await startTestApp();
  browser = await chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe('GraphiQL', () => {
  it('runs the sign-up tab from installed packages only and shows the result', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const foreignRequests: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(t.url) && !url.startsWith('data:')) foreignRequests.push(url);
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // Content-Security-Policy violations are reported as console errors.
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(`${message.text()} ${message.location().url}`);
    });

    await page.goto(`${t.url}/`);
    await page.click('a[href="/graphiql"]');
    await page.waitForSelector('.graphiql-container');

    // The main operations open as tabs; the first one is signUp.
    const tabs = await page.locator('.graphiql-tab').allInnerTexts();
    expect(tabs.map((tab) => tab.trim())).toEqual(['SignUp', 'Follow', 'CreatePost', 'HomeTimeline', 'Suggestions']);
    await expect.poll(() => page.locator('.graphiql-query-editor').innerText()).toContain('mutation SignUp($input: SignUpInput!)');
    // The header editor is open with an Authorization example.
    await expect.poll(() => page.locator('.graphiql-editor-tool').innerText()).toContain('"Authorization": "Bearer <token from signUp>"');

    await page.click('.graphiql-execute-button');
    const result = page.locator('.graphiql-response');
    await expect.poll(() => result.innerText(), { timeout: 15_000 }).toContain('"handle": "ada"');
    expect(await result.innerText()).toMatch(/"token": "ey/);

    // The account exists in the service.
    const found = await t.gql('{ user(handle: "ada") { displayName } }');
    expect(found.data!.user).toEqual({ displayName: 'Ada Lovelace' });

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/graphiql.png` });
    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('serves its assets from node_modules with a policy that allows nothing from elsewhere', async () => {
    const response = await fetch(`${t.url}/graphiql`);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await response.text();
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!).filter((url) => !url.startsWith('data:'));
    expect(references).toHaveLength(5);
    for (const url of references) {
      expect(url).toMatch(/^\/graphiql\/assets\//);
      expect((await fetch(`${t.url}${url}`)).status).toBe(200);
    }
    expect((await fetch(`${t.url}/graphiql/assets/../../package.json`)).status).toBe(404);
  });
});
