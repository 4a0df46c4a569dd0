import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { RunEvent, ThreadRuns } from '@spindle/contracts';
import { eventually, pageShows, providerGate, startStack, type FakeOpenAIRequestBody, type Stack, launchChromium } from '@spindle/testing';

/**
 * Issue 16: a minimal React page with a stock `useChat` (`ai` + `@ai-sdk/react`, the default
 * transport, `resume: true`), served by the gateway, talking to a workflow through
 * `/v1/chat/{name}`. The provider is held while the page must see a state, then let go.
 */

const ROOT = resolve(__dirname, '..', '..');

const chat = {
  kind: 'graph',
  nodes: [
    { id: 'assistant', type: 'agent', model: 'compatible:fake-model', prompt: '{{input}}', memory_key: 'messages', output_key: 'answer' },
  ],
};

const thinker = {
  kind: 'graph',
  nodes: [{ id: 'think', type: 'agent', model: 'compatible:fake-model', prompt: '{{input}}', stream: true, output_key: 'answer' }],
};

const userTexts = (body: FakeOpenAIRequestBody) => (body.messages ?? []).filter((m) => m.role === 'user').map((m) => String(m.content));

describe('useChat against a workflow (AI SDK UI message stream)', () => {
  let stack: Stack;
  let browser: Browser;
  let pageDir: string;
  const gate = providerGate();

  const open = async (chatId: string, workflow = 'chat'): Promise<Page> => {
    const page = await browser.newPage();
    await page.goto(`${stack.gatewayUrl}/?workflow=${workflow}&chat=${chatId}&key=${encodeURIComponent(stack.adminKey)}`);
    await page.getByLabel('Message').waitFor();
    return page;
  };
  const say = async (page: Page, text: string) => {
    await page.getByLabel('Message').fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
  };
  const answers = (page: Page) => page.locator('[data-testid="assistant-text"]').allTextContents();

  beforeAll(async () => {
    // The page, built with Vite and served by the gateway as its console: the same origin as the API.
    pageDir = mkdtempSync(join(tmpdir(), 'use-chat-'));
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'e2e/fixtures/use-chat/vite.config.mjs'],
      {
        cwd: ROOT,
        env: { ...process.env, USE_CHAT_OUT_DIR: pageDir },
        stdio: 'pipe',
      },
    );
    stack = await startStack({ serviceEnv: (name): Record<string, string> => (name === 'gateway' ? { CONSOLE_DIR: pageDir } : {}) });
    stack.fake.reply = async (body) => {
      // The thinker streams five words of reasoning and two of its answer, then waits for the gate.
      if (userTexts(body).includes('What is two and two?'))
        return { reasoning: 'Two and two make four.', text: 'It is four, of course.', pauseAfter: { chunks: 7, until: gate.passed()! } };
      await gate.passed();
      return { text: `You said: ${userTexts(body).join(' | ')}` };
    };
    for (const [name, definition] of Object.entries({ chat, thinker }))
      expect((await stack.api(`/v1/workflows/${name}`, { method: 'PUT', body: JSON.stringify(definition) })).status).toBe(201);
    browser = await launchChromium();
  }, 120_000);
  afterEach(() => gate.release());
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    rmSync(pageDir, { recursive: true, force: true });
  });

  it('answers each message on the chat, remembering the conversation, with the node as a data part', async () => {
    const page = await open('chat-remembers');
    await say(page, 'My name is Ada.');
    await page.locator('[data-testid="assistant-text"]').first().waitFor();
    await page.locator('[data-testid="status"]', { hasText: 'ready' }).waitFor();
    await say(page, 'What is my name?');
    await page.locator('[data-testid="assistant-text"]').nth(1).waitFor();
    // The answer arrives token by token, and its node's data part after it.
    await pageShows(async () =>
      expect(await answers(page)).toEqual(['You said: My name is Ada.', 'You said: My name is Ada. | What is my name?']),
    );
    await pageShows(async () =>
      expect(await page.locator('[data-testid="node"][data-status="completed"]').allTextContents()).toEqual(['assistant', 'assistant']),
    );
    // Nothing is in progress now: a reload has nothing to resume.
    const resumed = await fetch(`${stack.gatewayUrl}/v1/chat/chat/chat-remembers/stream`, {
      headers: { authorization: `Bearer ${stack.adminKey}` },
    });
    expect(resumed.status).toBe(204);
    await page.close();
  });

  it('resumes the answer in progress after a reload, and loses nothing of it', async () => {
    gate.hold();
    const page = await open('chat-reloads');
    await say(page, 'Tell me a story.');
    // The answer is in progress (the provider holds it) when the page reloads.
    const threadRun = await eventually(async () => {
      const threads = (await (await stack.api('/v1/threads')).json()) as {
        threads: Array<{ threadId: string; metadata: { chatId?: string } }>;
      };
      const thread = threads.threads.find((t) => t.metadata.chatId === 'chat-reloads');
      const runs = ((await (await stack.api(`/v1/threads/${thread!.threadId}/runs`)).json()) as ThreadRuns).runs;
      expect(runs.at(-1)?.status).toBe('running');
      return runs.at(-1)!;
    }, 200);
    await page.reload();
    await page.getByLabel('Message').waitFor();
    await page.locator('[data-testid="status"]', { hasText: /submitted|streaming/ }).waitFor();
    gate.release();
    await page.locator('[data-testid="assistant-text"]').waitFor();
    await pageShows(async () => expect(await answers(page)).toEqual(['You said: Tell me a story.']));
    // It was the same run: one model call, no second answer started by the reload.
    const { events } = (await (await stack.api(`/v1/runs/${threadRun.runId}/events`)).json()) as { events: RunEvent[] };
    expect(events.filter((e) => e.type === 'model.completed')).toHaveLength(1);
    await page.close();
  });

  it('shows the reasoning and the answer as the model says them, and the whole of both once it has', async () => {
    gate.hold();
    const page = await open('chat-thinks', 'thinker');
    await say(page, 'What is two and two?');
    // The provider holds the rest of the answer: what the page shows now came token by token.
    await page.locator('[data-testid="assistant-text"]', { hasText: 'It is' }).waitFor();
    await pageShows(async () => expect(await answers(page)).toEqual(['It is ']));
    await pageShows(async () =>
      expect(await page.locator('[data-testid="reasoning"]').allTextContents()).toEqual(['Two and two make four.']),
    );
    expect(await page.locator('[data-testid="status"]').textContent()).toBe('streaming');
    gate.release();
    await page.locator('[data-testid="status"]', { hasText: 'ready' }).waitFor();
    expect(await answers(page)).toEqual(['It is four, of course.']);
    expect(await page.locator('[data-testid="reasoning"]').allTextContents()).toEqual(['Two and two make four.']);
    await page.close();
  });

  it('answers a reload with no answer in progress with nothing to resume, and refuses a chat with no user message', async () => {
    const auth = { authorization: `Bearer ${stack.adminKey}` };
    expect((await fetch(`${stack.gatewayUrl}/v1/chat/chat/never-used/stream`, { headers: auth })).status).toBe(204);
    const refused = await fetch(`${stack.gatewayUrl}/v1/chat/chat`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'x', messages: [{ id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] }] }),
    });
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([400, 'validation_failed']);
    expect((await fetch(`${stack.gatewayUrl}/v1/chat/no-such-workflow/x/stream`, { headers: auth })).status).toBe(404);
  });
});
