import { randomBytes } from 'node:crypto';
import type { RunEvent, RunTrace, StoredFile } from '@spindle/contracts';
import { eventually, startStack, type FakeOpenAIRequestBody, type Stack } from '@spindle/testing';

/** A PNG's signature and random bytes: the model must receive exactly these. */
const png = () => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(96)]);
const pdf = () => Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');

const look = {
  kind: 'graph',
  nodes: [{ id: 'look', type: 'llm', model: 'compatible:vision', prompt: 'What is in the picture?', attachments: 'input.files' }],
};
/** An agent that remembers its conversation: a thread's later run still sends the first run's image. */
const chat = {
  kind: 'graph',
  nodes: [
    {
      id: 'assistant',
      type: 'agent',
      model: 'compatible:vision',
      prompt: '{{input.text}}',
      attachments: 'input.files',
      memory_key: 'messages',
      output_key: 'answer',
    },
  ],
};

interface WirePart {
  type: string;
  text?: string;
  image_url?: { url: string };
}
/** The data URLs of the images the provider received, in its own wire shape, decoded. */
const imagesSent = (body: FakeOpenAIRequestBody) =>
  (body.messages ?? [])
    .flatMap((m) => (Array.isArray(m.content) ? (m.content as WirePart[]) : []))
    .filter((p) => p.type === 'image_url')
    .map((p) => {
      const match = /^data:([^;]+);base64,(.*)$/.exec(p.image_url?.url ?? '');
      return { mediaType: match?.[1], bytes: Buffer.from(match?.[2] ?? '', 'base64') };
    });

/**
 * Attachments from the outside: a file uploaded through the API reaches the provider as its own
 * wire shape, byte for byte; the log and the trace hold the reference, not the bytes; a model that
 * cannot take the file refuses before any request; a thread keeps its files across runs.
 */
describe('attachments: upload → run → the provider’s wire shape', () => {
  let stack: Stack;

  const upload = async (bytes: Buffer, type: string) => {
    const res = await stack.api('/v1/files?name=shot', { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(bytes) });
    expect(res.status).toBe(201);
    return (await res.json()) as StoredFile;
  };
  const finished = async (runId: string) =>
    eventually(async () => {
      const run = (await (await stack.api(`/v1/runs/${runId}`)).json()) as { status: string; error?: { code: string } };
      expect(['completed', 'failed']).toContain(run.status);
      return run;
    }, 200);
  const eventsOf = async (runId: string) => ((await (await stack.api(`/v1/runs/${runId}/events`)).json()) as { events: RunEvent[] }).events;
  const start = async (input: unknown) => {
    const res = await stack.api('/v1/workflows/look/runs', { method: 'POST', body: JSON.stringify({ input }) });
    expect(res.status).toBe(202);
    return ((await res.json()) as { runId: string }).runId;
  };

  beforeAll(async () => {
    stack = await startStack();
    for (const [name, definition] of Object.entries({ look, chat }))
      expect((await stack.api(`/v1/workflows/${name}`, { method: 'PUT', body: JSON.stringify(definition) })).status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('sends the uploaded image as an image_url data URL whose bytes are the upload, and logs only its reference', async () => {
    const bytes = png();
    const file = await upload(bytes, 'image/png');
    const calls = stack.fake.calls.length;
    const runId = await start({ files: [{ type: 'file', fileId: file.fileId }] });
    expect((await finished(runId)).status).toBe('completed');

    const sent = stack.fake.calls.slice(calls).map((c) => imagesSent(c.body));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toHaveLength(1);
    expect(sent[0][0].mediaType).toBe('image/png');
    expect(sent[0][0].bytes.equals(bytes)).toBe(true);

    const events = await eventsOf(runId);
    const started = events.find((e) => e.type === 'model.started') as RunEvent & { data: { attachments?: unknown[] } };
    expect(started.data.attachments).toEqual([
      { type: 'file', fileId: file.fileId, mediaType: 'image/png', bytes: bytes.length, sha256: file.sha256, name: 'shot' },
    ]);
    // The log never carries the bytes: not raw, not base64.
    expect(JSON.stringify(events)).not.toContain(bytes.toString('base64').slice(0, 40));

    const trace = (await (await stack.api(`/v1/runs/${runId}/trace`)).json()) as RunTrace;
    const model = trace.spans.find((s) => s.kind === 'model') as { input?: { attachments?: Array<{ mediaType: string }> } };
    expect(model.input?.attachments?.map((a) => a.mediaType)).toEqual(['image/png']);
  });

  it('refuses a PDF for a model that takes only images, with attachment_not_supported and no provider request', async () => {
    const file = await upload(pdf(), 'application/pdf');
    const calls = stack.fake.calls.length;
    const runId = await start({ files: [{ type: 'file', fileId: file.fileId }] });
    const run = await finished(runId);
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('attachment_not_supported');
    expect(stack.fake.calls.length).toBe(calls);
  });

  it('keeps a thread’s image in its conversation: the next run sends it again without re-uploading', async () => {
    const bytes = png();
    const file = await upload(bytes, 'image/png');
    const threadId = ((await (await stack.api('/v1/threads', { method: 'POST', body: '{}' })).json()) as { threadId: string }).threadId;
    const turn = async (input: unknown) => {
      const res = await stack.api(`/v1/threads/${threadId}/runs`, { method: 'POST', body: JSON.stringify({ workflow: 'chat', input }) });
      expect(res.status).toBe(202);
      expect((await finished(((await res.json()) as { runId: string }).runId)).status).toBe('completed');
      return stack.fake.calls.at(-1)?.body as FakeOpenAIRequestBody;
    };
    await turn({ text: 'Look at this.', files: [{ type: 'file', fileId: file.fileId }] });
    const second = await turn({ text: 'And now?', files: [] });
    const images = imagesSent(second);
    expect(images).toHaveLength(1);
    expect(images[0].bytes.equals(bytes)).toBe(true);
  });
});
