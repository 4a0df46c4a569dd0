import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { eventually } from './test-helpers';

const chromiumPath = () => process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why Chromium cannot be launched here (none at its path), or undefined when it can. */
export function chromiumMissing(): string | undefined {
  const executablePath = chromiumPath();
  return existsSync(executablePath) ? undefined : `no Chromium at ${executablePath}: apt-get install -y chromium (or set CHROMIUM_PATH)`;
}

/** Debian's Chromium, headless; never a browser downloaded by a tool. */
export async function launchChromium(): Promise<Browser> {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  const executablePath = chromiumPath();
  // Loaded here, not with the library: most tests never start a browser. (A require, since Jest's
  // module registry runs without dynamic import.)
  const { chromium } = require('playwright-core') as typeof import('playwright-core');
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
}

/**
 * An assertion on what a page shows, retried until it holds (for up to 15 s): the page draws when
 * its fetches answer and its layout passes run, never at the moment the test reads it. Waiting
 * for one element says nothing about its neighbours (React Flow paints edge labels after it has
 * measured the nodes), so every read of a rendered state goes through this, not a bare `expect`.
 */
export function pageShows(assertion: () => Promise<void>): Promise<void> {
  return eventually(assertion, 150, 100);
}

/**
 * Signs in on the console's sign-in screen (the page must be showing it) with an API key, as a
 * person pastes one, and waits until the top bar names who is signed in.
 */
export async function signInWithKey(page: Page, key: string): Promise<void> {
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in with key' }).click();
  await page.locator('[data-testid="signed-in-as"]').waitFor();
}

/**
 * A workflow of `rounds` loop rounds of five `set` nodes: a loop.iteration and five node spans a
 * round, so 1,000 rounds log more than 11,000 events (the console's long-run checks).
 */
export function longLoopWorkflow(rounds = 1_000) {
  return {
    kind: 'graph',
    nodes: [
      {
        id: 'rounds',
        type: 'loop',
        max_steps: rounds,
        body: {
          nodes: ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, type: 'set', values: { [id]: '{{input}}' } })),
          edges: ['b', 'c', 'd', 'e'].map((to, i) => ({ from: ['a', 'b', 'c', 'd'][i], to })),
        },
      },
    ],
  };
}
