import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '@spindle/contracts';
import { eventually, type Stack } from '@spindle/testing';

/** Saves the README's hello workflow (offline model: no provider needed) as `hello`. */
export async function putHelloWorkflow(stack: Stack): Promise<void> {
  const definition = readFileSync(join(__dirname, '../../examples/hello-workflow.json'), 'utf8');
  const saved = await stack.api('/v1/workflows/hello', { method: 'PUT', body: definition });
  if (saved.status !== 201) throw new Error(`saving the hello workflow answered ${saved.status}`);
}

/** Starts a hello run and waits for its log to end in `run.completed`. */
export async function runHelloToEnd(stack: Stack): Promise<{ runId: string; log: RunEvent[] }> {
  const started = await stack.api('/v1/workflows/hello/runs', { method: 'POST', body: JSON.stringify({ input: { name: 'Ada' } }) });
  if (started.status !== 202) throw new Error(`starting a hello run answered ${started.status}: ${await started.text()}`);
  const { runId } = (await started.json()) as { runId: string };
  const log = await eventually(
    async () => {
      const { events } = (await (await stack.api(`/v1/runs/${runId}/events`)).json()) as { events: RunEvent[] };
      if (events.at(-1)?.type !== 'run.completed') throw new Error(`run ${runId} has not completed`);
      return events;
    },
    300,
    100,
  );
  return { runId, log };
}

/** Saves `definition` as workflow `name`, runs it with `input` over SSE and returns the run's events. */
export async function saveAndStream(stack: Stack, name: string, definition: unknown, input: unknown): Promise<RunEvent[]> {
  const put = await stack.api(`/v1/workflows/${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(definition),
  });
  if (put.status !== 201) throw new Error(`saving workflow ${name} answered ${put.status}: ${await put.text()}`);
  const { frames } = await stack.sse(`/v1/workflows/${name}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
  });
  return frames.filter((f) => f.id !== undefined).map((f) => JSON.parse(f.data) as RunEvent);
}
