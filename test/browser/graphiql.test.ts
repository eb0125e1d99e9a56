import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { findChromium } from '../helpers/chromium.js';
import { expiringIn } from '../helpers/clients.js';

const ARTIFACTS = 'test-artifacts';

let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  // Fails with what to install rather than skipping: Chromium is a prerequisite of the test suite.
  const executablePath = findChromium();
  t = await startTestApp();
  browser = await chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

/** Opens the tab named `name` and runs its operation. */
async function runTab(page: Page, name: string): Promise<void> {
  await page.locator('.graphiql-tab-button', { hasText: new RegExp(`^\\s*${name}\\s*$`) }).click();
  await expect.poll(() => page.locator('.graphiql-query-editor').innerText()).toMatch(new RegExp(` ${name}\\s*[({]`));
  await page.click('.graphiql-execute-button');
}

/** A fresh GraphiQL page, the page's errors collected. */
async function openGraphiQL() {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${t.url}/graphiql`);
  await page.waitForSelector('.graphiql-container');
  return { page, pageErrors, result: page.locator('.graphiql-response') };
}

/** The tokens the page keeps, as SignUp, SignIn or RefreshSession leave them. */
function kept(page: Page) {
  return page.evaluate(() => ({
    token: sessionStorage.getItem('social-graph-api:token'),
    refreshToken: sessionStorage.getItem('social-graph-api:refresh-token'),
  }));
}
function keep(page: Page, tokens: { token: string; refreshToken: string | null }) {
  return page.evaluate((given) => {
    sessionStorage.setItem('social-graph-api:token', given.token);
    sessionStorage.setItem('social-graph-api:refresh-token', given.refreshToken ?? '');
  }, tokens);
}

describe('GraphiQL', () => {
  it('runs the sign-up tab from installed packages only, shows the result and keeps its token for the next tabs', async () => {
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
    expect(tabs.map((tab) => tab.trim())).toEqual([
      'SignUp',
      'SignIn',
      'RefreshSession',
      'Follow',
      'CreatePost',
      'HomeTimeline',
      'TimelineUpdates',
      'Suggestions',
    ]);
    await expect
      .poll(() => page.locator('.graphiql-query-editor').innerText())
      .toContain('mutation SignUp($input: SignUpInput!)');
    // The header editor is open with an Authorization example.
    await expect
      .poll(() => page.locator('.graphiql-editor-tool').innerText())
      .toContain('"Authorization": "Bearer <token from SignUp or SignIn, kept for you>"');

    await page.click('.graphiql-execute-button');
    const result = page.locator('.graphiql-response');
    await expect.poll(() => result.innerText(), { timeout: 15_000 }).toContain('"handle": "ada"');
    expect(await result.innerText()).toMatch(/"token": "ey/);

    // The account exists in the service.
    const found = await t.gql('{ user(handle: "ada") { displayName } }');
    expect(found.data!.user).toEqual({ displayName: 'Ada Lovelace' });

    // The token SignUp returned is kept: CreatePost runs as ada without anyone pasting it.
    const signUpToken = /"token": "(ey[^"]+)"/.exec(await result.innerText())![1]!;
    await runTab(page, 'CreatePost');
    await expect
      .poll(() => result.innerText(), { timeout: 15_000 })
      .toContain('"text": "The Analytical Engine weaves algebraic patterns"');
    expect(await result.innerText()).toContain('"handle": "ada"');

    // SignIn's token replaces the kept one, and the next tab runs with it.
    await runTab(page, 'SignIn');
    await expect.poll(() => result.innerText(), { timeout: 15_000 }).toMatch(/"refreshToken": "rt_/);
    const signInToken = /"token": "(ey[^"]+)"/.exec(await result.innerText())![1]!;
    expect(signInToken).not.toBe(signUpToken);
    await runTab(page, 'HomeTimeline');
    await expect
      .poll(() => result.innerText(), { timeout: 15_000 })
      .toContain('"text": "The Analytical Engine weaves algebraic patterns"');
    expect(await page.evaluate(() => sessionStorage.getItem('social-graph-api:token'))).toBe(signInToken);

    // The subscription tab runs over a WebSocket signed in with the kept token: a post made elsewhere shows up.
    await runTab(page, 'TimelineUpdates');
    // graphql-ws does not say when a subscription listens: post until one arrives.
    await expect
      .poll(
        async () => {
          await t.gql(
            'mutation { createPost(input: { text: "Live from another client" }) { post { id } } }',
            {},
            signInToken,
          );
          return result.innerText();
        },
        { timeout: 20_000, interval: 1_000 },
      )
      .toContain('"text": "Live from another client"');

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/graphiql.png` });
    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('keeps the refresh token too, and swaps both in the RefreshSession tab', async () => {
    const { page, result, pageErrors } = await openGraphiQL();
    // As if SignIn had run a while ago: the kept access token has expired, its refresh token has not.
    const user = await t.signUp();
    await keep(page, await expiringIn(t, { token: user.token, refreshToken: user.refreshToken, expiresAt: '' }, -60));

    // RefreshSession sends the kept refresh token in place of the example's, and keeps the new pair.
    await runTab(page, 'RefreshSession');
    await expect.poll(() => result.innerText(), { timeout: 15_000 }).toMatch(/"refreshToken": "rt_/);
    const shown = await result.innerText();
    const refreshed = {
      token: /"token": "(ey[^"]+)"/.exec(shown)![1]!,
      refreshToken: /"refreshToken": "(rt_[^"]+)"/.exec(shown)![1]!,
    };
    expect(refreshed.refreshToken).not.toBe(user.refreshToken);
    expect(await kept(page)).toEqual(refreshed);
    expect((await t.gql('{ viewer { id } }', {}, refreshed.token)).data).toEqual({ viewer: { id: user.id } });
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('ends a subscription refused for an expired or a revoked token with why, instead of a spinner', async () => {
    const { page, result, pageErrors } = await openGraphiQL();
    const user = await t.signUp();
    const idle = page.locator('.graphiql-execute-button[aria-label="Execute query (Ctrl-Enter)"]');

    await keep(page, await expiringIn(t, { token: user.token, refreshToken: user.refreshToken, expiresAt: '' }, -60));
    await runTab(page, 'TimelineUpdates');
    await expect
      .poll(() => result.innerText(), { timeout: 15_000 })
      .toContain('The WebSocket closed: 4403 Forbidden: The token has expired. Run RefreshSession or SignIn');
    await expect.poll(() => idle.count()).toBe(1);

    // Signed out everywhere: the kept token is revoked before it expires.
    await keep(page, { token: user.token, refreshToken: user.refreshToken });
    expect((await t.gql('mutation { signOut(everywhere: true) }', {}, user.token)).data).toEqual({ signOut: true });
    await page.click('.graphiql-execute-button');
    await expect
      .poll(() => result.innerText(), { timeout: 15_000 })
      .toContain('The WebSocket closed: 4403 Forbidden: The token was signed out');
    await expect.poll(() => idle.count()).toBe(1);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('opens its Docs panel with the schema’s description rather than GraphiQL’s generic text', async () => {
    const { page, pageErrors } = await openGraphiQL();
    await page.click('[aria-label="Show Documentation Explorer"]');
    const docs = page.locator('.graphiql-doc-explorer');
    await expect.poll(() => docs.innerText(), { timeout: 15_000 }).toContain('Errors carry a stable extensions.code');
    expect(await docs.innerText()).toContain('refreshSession');
    expect(await docs.innerText()).not.toContain('A GraphQL schema provides a root type');
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('serves its assets from node_modules with a policy that allows nothing from elsewhere', async () => {
    const response = await fetch(`${t.url}/graphiql`);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await response.text();
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)]
      .map((match) => match[1]!)
      .filter((url) => !url.startsWith('data:'));
    expect(references).toHaveLength(6);
    for (const url of references) {
      expect(url).toMatch(/^\/graphiql\/assets\//);
      expect((await fetch(`${t.url}${url}`)).status).toBe(200);
    }
    expect((await fetch(`${t.url}/graphiql/assets/../../package.json`)).status).toBe(404);
  });
});
