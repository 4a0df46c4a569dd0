import type { A2aMessage, RunEventDraft } from '@spindle/contracts';
import { a2aAgentCardOf, a2aTaskOf, answerOfMessage, startBodyOfMessage } from './a2a-tasks';
import { completedRunDrafts, queued, runLog } from './run-events.fixture';

const runId = '01JQ0000000000000000000000';
const root = { spanId: 'root', path: 'root' };
const started: RunEventDraft = { type: 'run.started', ...root, data: { attempt: 1, worker: 'w1' } };
const asked: RunEventDraft = {
  type: 'input.requested',
  nodeId: 'ask',
  spanId: 'span-ask',
  path: 'root/ask',
  data: { requestId: 'req-1', prompt: 'Book it?', form: { kind: 'boolean' }, mode: 'single' },
};
const awaiting: RunEventDraft = { type: 'run.awaiting', ...root, data: { reason: 'input', requestIds: ['req-1'] } };
const message = (parts: A2aMessage['parts']): A2aMessage => ({ kind: 'message', messageId: 'm1', role: 'user', parts });

describe('runs as A2A tasks', () => {
  it('follows the run: submitted, working, input-required with its open requests, completed with the output artifact', () => {
    const state = (drafts: RunEventDraft[]) => a2aTaskOf(runLog(runId, drafts)).status.state;
    expect(state([queued()])).toBe('submitted');
    expect(state([queued(), started])).toBe('working');
    const waiting = a2aTaskOf(runLog(runId, [queued(), started, asked, awaiting]));
    expect(waiting).toMatchObject({ id: runId, contextId: runId, status: { state: 'input-required' } });
    expect(waiting.status.message?.parts).toEqual([
      { kind: 'text', text: 'Book it?' },
      { kind: 'data', data: { requests: [{ requestId: 'req-1', kind: 'input', prompt: 'Book it?', form: { kind: 'boolean' } }] } },
    ]);
    const done = a2aTaskOf(runLog(runId, completedRunDrafts()));
    expect(done.status.state).toBe('completed');
    expect(done.artifacts).toEqual([{ artifactId: 'output', name: 'output', parts: [{ kind: 'data', data: expect.any(Object) }] }]);
  });

  it('tells a failed run and a canceled one apart, the failure with its code', () => {
    const failed = a2aTaskOf(
      runLog(runId, [
        queued(),
        started,
        { type: 'run.failed', ...root, data: { error: { code: 'provider_error', message: 'down' }, durationMs: 3 } },
      ]),
    );
    expect(failed.status).toMatchObject({ state: 'failed', message: { parts: [{ text: 'the run failed (provider_error): down' }] } });
    expect(a2aTaskOf(runLog(runId, [queued(), { type: 'run.canceled', ...root, data: {} }])).status.state).toBe('canceled');
  });

  it('starts a run from the data part as parameters (text as input), or as the input; answers with the data part or the text', () => {
    const withParameters = { kind: 'graph', parameters: { type: 'object' } };
    expect(startBodyOfMessage(withParameters, message([{ kind: 'data', data: { city: 'Oslo' } }]))).toEqual({
      parameters: { city: 'Oslo' },
      input: null,
    });
    expect(
      startBodyOfMessage(
        { kind: 'graph' },
        message([
          { kind: 'text', text: 'hi' },
          { kind: 'text', text: 'there' },
        ]),
      ),
    ).toEqual({
      input: 'hi\nthere',
    });
    expect(startBodyOfMessage({ kind: 'graph' }, message([{ kind: 'data', data: { a: 1 } }]))).toEqual({ input: { a: 1 } });
    expect(answerOfMessage(message([{ kind: 'data', data: { requestId: 'req-2', approved: true } }]))).toEqual({
      requestId: 'req-2',
      body: { approved: true },
    });
    expect(answerOfMessage(message([{ kind: 'text', text: 'yes please' }]))).toEqual({ body: { text: 'yes please' } });
  });

  it("describes a workflow's agent: its name, description and one skill at the given URL", () => {
    const card = a2aAgentCardOf({ name: 'weather', version: 4, definition: { description: 'Forecasts.' } }, 'https://x/v1/a2a/weather');
    expect(card).toMatchObject({
      protocolVersion: '0.3.0',
      name: 'weather',
      description: 'Forecasts.',
      url: 'https://x/v1/a2a/weather',
      version: '4',
      skills: [{ id: 'weather', description: 'Forecasts.' }],
    });
  });
});
