import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, metricValue, startStack, type Stack } from '@spindle/testing';

/** A person is asked for a colour, then the model answers: a run that waits, streams and ends. */
const workflow = {
  kind: 'graph',
  nodes: [
    { id: 'ask', type: 'human', prompt: 'Name a colour', form: 'text' },
    { id: 'answer', type: 'llm', model: 'compatible:fake-model', prompt: 'Say something about {{ask.text}}', output_key: 'answer' },
  ],
  edges: [{ from: 'ask', to: 'answer' }],
};

describe('/metrics of every service follows a run as it goes', () => {
  let stack: Stack;
  const scrape = async (service: string) => {
    const port = stack.processes.find((p) => p.name === service)?.port;
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    return res.text();
  };

  beforeAll(async () => {
    stack = await startStack({ reply: () => ({ text: 'Teal is calm.', usage: { prompt_tokens: 17, completion_tokens: 4 } }) });
    expect((await stack.api('/v1/workflows/metered', { method: 'PUT', body: JSON.stringify(workflow) })).status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('shows the waiting request, the open stream and the queue, then the ended run with its tokens, and never a run id', async () => {
    const started = await stack.api('/v1/workflows/metered/runs', { method: 'POST', body: JSON.stringify({ input: {} }) });
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as { runId: string };

    // The run waits on a person: the approval service counts the pending request.
    await eventually(async () =>
      expect(metricValue(await scrape('approval'), 'spindle_human_requests_pending', { kind: 'input' })).toBe(1),
    );
    expect(
      metricValue(await scrape('approval'), 'spindle_human_request_oldest_pending_age_seconds', { kind: 'input' }),
    ).toBeGreaterThanOrEqual(0);

    // A client follows it: the gateway counts the open stream, and stops counting it once the client leaves.
    const follower = new AbortController();
    const stream = await fetch(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
      headers: { ...stack.auth, accept: 'text/event-stream' },
      signal: follower.signal,
    });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(metricValue(await scrape('gateway'), 'spindle_sse_clients')).toBe(1);
    follower.abort();
    await eventually(async () => expect(metricValue(await scrape('gateway'), 'spindle_sse_clients')).toBe(0));

    const { requests } = (await (await stack.api(`/v1/runs/${runId}/requests`)).json()) as { requests: Array<{ requestId: string }> };
    const answered = await stack.api(`/v1/runs/${runId}/requests/${requests[0].requestId}/respond`, {
      method: 'POST',
      body: JSON.stringify({ text: 'teal' }),
    });
    expect(answered.status).toBe(202);
    await eventually(async () => {
      const trace = await scrape('trace-recorder');
      expect(metricValue(trace, 'spindle_runs_ended_total', { workflow: 'metered', status: 'completed', error_code: 'none' })).toBe(1);
    });

    const trace = await scrape('trace-recorder');
    const model = 'compatible:fake-model';
    expect(metricValue(trace, 'spindle_runs_queued_total', { workflow: 'metered' })).toBe(1);
    expect(metricValue(trace, 'spindle_run_duration_seconds_count', { workflow: 'metered', status: 'completed' })).toBe(1);
    expect(metricValue(trace, 'spindle_node_duration_seconds_count', { node_type: 'human', status: 'completed' })).toBe(1);
    expect(metricValue(trace, 'spindle_model_calls_total', { model, status: 'completed', error_code: 'none' })).toBe(1);
    expect(metricValue(trace, 'spindle_model_tokens_total', { model, kind: 'input' })).toBe(17);
    expect(metricValue(trace, 'spindle_model_tokens_total', { model, kind: 'output' })).toBe(4);
    expect(metricValue(trace, 'spindle_human_requests_total', { kind: 'input' })).toBe(1);
    expect(metricValue(trace, 'spindle_jetstream_consumer_pending_messages', { consumer: 'trace-recorder' })).toBeGreaterThanOrEqual(0);

    await eventually(async () =>
      expect(metricValue(await scrape('approval'), 'spindle_human_requests_pending', { kind: 'input' })).toBe(0),
    );

    const gateway = await scrape('gateway');
    const startRoute = { method: 'POST', route: '/v1/workflows/:name/runs', status: '202' };
    expect(metricValue(gateway, 'spindle_http_request_duration_seconds_count', startRoute)).toBe(1);
    expect(metricValue(gateway, 'spindle_jetstream_stream_bytes', { stream: 'RUN_EVENTS' })).toBeGreaterThan(0);
    expect(metricValue(gateway, 'spindle_jetstream_storage_used_bytes')).toBeGreaterThan(0);

    const dispatcher = await scrape('dispatcher');
    expect(metricValue(dispatcher, 'spindle_run_queue_depth', { state: 'waiting' })).toBe(0);
    expect(metricValue(dispatcher, 'spindle_run_queue_oldest_age_seconds', { state: 'admitted' })).toBe(0);
    expect(metricValue(dispatcher, 'spindle_jetstream_consumer_pending_messages', { consumer: 'admission' })).toBeGreaterThanOrEqual(0);

    const runner = await scrape('runner');
    expect(metricValue(runner, 'spindle_jetstream_consumer_pending_messages', { consumer: 'runners' })).toBe(0);
    expect(metricValue(runner, 'spindle_runner_run_capacity')).toBeGreaterThan(0);

    // Labels name workflows, models, routes and kinds: never a run.
    for (const service of ['gateway', 'runner', 'trace-recorder', 'checkpoint', 'approval', 'dispatcher'])
      expect(await scrape(service)).not.toContain(runId);
  });

  it('serves every series the Grafana dashboard and the alert rules in deploy/ query', async () => {
    const exposed = new Set<string>();
    for (const service of ['gateway', 'runner', 'trace-recorder', 'checkpoint', 'approval', 'dispatcher']) {
      for (const [, name] of (await scrape(service)).matchAll(/^# TYPE (\S+) /gm)) exposed.add(name);
    }
    const monitoring = join(__dirname, '..', '..', 'deploy', 'components', 'monitoring');
    const queries = ['spindle-dashboard.json', 'alert-rules.yaml'].map((file) => readFileSync(join(monitoring, file), 'utf8'));
    const named = new Set(
      queries.flatMap((text) => [...text.matchAll(/\bspindle_[a-z_]+/g)].map(([name]) => name.replace(/_(bucket|sum|count)$/, ''))),
    );
    expect(named.size).toBeGreaterThan(20);
    expect([...named].filter((name) => !exposed.has(name))).toEqual([]);
  });
});
