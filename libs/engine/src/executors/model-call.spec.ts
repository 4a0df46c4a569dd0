import { validateDefinition } from '../definition/validate-definition';
import { executeRun } from '../interpreter/execute-run';
import { recordingEnvironment, scriptedModel, toolCalls } from '../testing/in-process-ports';
import { messageHash } from '../hashing/message-hash';

describe('model spans keep the log linear in the conversation', () => {
  it('logs each message once, in full, and refers to earlier ones by content hash', async () => {
    const model = scriptedModel([toolCalls({ name: 'clock', arguments: {} }), toolCalls({ name: 'clock', arguments: {} }), 'It is noon.']);
    const { env, events } = recordingEnvironment({ model, tools: { clock: () => '12:00' } });
    await executeRun(
      {
        definition: validateDefinition({ kind: 'graph', nodes: [{ id: 'a', type: 'agent', model: 'm:x', tools: ['clock'] }] }),
        state: { input: 'time?' },
        attempt: 1,
        worker: 'w',
      },
      env,
    );
    const starts = events
      .filter((e) => e.type === 'model.started')
      .map((e) => e.data as { prompt?: string; messages?: Array<{ hash: string }>; history?: string[] });
    expect(starts[0]).toMatchObject({ prompt: 'time?' });
    expect(starts[0].history).toBeUndefined();
    // Every message the third call sent was logged exactly once before or in it.
    const sent = model.requests[2].messages.map(messageHash);
    const logged = [messageHash({ role: 'user', content: 'time?' }), ...starts.flatMap((s) => (s.messages ?? []).map((m) => m.hash))];
    expect(logged).toEqual(sent);
    expect(starts[2].history).toEqual(sent.slice(0, sent.length - starts[2].messages!.length));
    expect(starts[1].messages).toHaveLength(2);
    expect(starts[2].messages).toHaveLength(2);
  });
});
