/// <reference lib="dom" />
// The scrub runs in the page: its code is typed against the DOM.
import { launchChromium, longLoopWorkflow, signInWithKey, type Stack } from '@spindle/testing';
import type { GatewayClient } from './gateway-client';
import { median } from './stats';

export interface ConsoleScrub {
  events: number;
  scrubs: number;
  medianMs: number;
  maxMs: number;
}

/**
 * The console's replay scrubber on a run of more than 10,000 events, in Debian's Chromium: the
 * time from moving the slider to the second frame after (the graph, timeline and detail all
 * derived again from the new prefix and painted), 15 moves across the run.
 */
export async function measureConsoleScrub(client: GatewayClient, stack: Stack): Promise<ConsoleScrub> {
  await client.putWorkflow('bench-long-loop', longLoopWorkflow());
  const runId = await client.startRun('bench-long-loop', { input: 'x' });
  const total = (await client.waitTerminal(runId)).length;
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(stack.gatewayUrl);
    await signInWithKey(page, stack.adminKey);
    await page.goto(`${stack.gatewayUrl}/#/runs/${runId}?at=${Math.floor(total / 2)}`);
    await page.locator('.flow-node[data-node-id="rounds"]').waitFor();
    const timings = await page.evaluate(async (count) => {
      const slider = document.querySelector<HTMLInputElement>('[data-testid="cursor"]')!;
      const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
      const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const out: number[] = [];
      for (let i = 1; i <= 15; i++) {
        const t0 = performance.now();
        setValue.call(slider, String(Math.floor((count * i) / 16)));
        slider.dispatchEvent(new Event('input', { bubbles: true }));
        await frame();
        out.push(performance.now() - t0);
      }
      return out;
    }, total);
    return { events: total, scrubs: timings.length, medianMs: median(timings), maxMs: Math.max(...timings) };
  } finally {
    await browser.close();
  }
}
