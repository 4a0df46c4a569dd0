import { fileSha256, readFileBytes } from '@spindle/bus';
import type { RunEvent } from '@spindle/contracts';
import { tinyPdf } from '@spindle/knowledge';
import { eventually, startStack, stopProcess, type Stack } from '@spindle/testing';

const support = {
  kind: 'graph',
  nodes: [
    { id: 'search', type: 'retrieve', knowledgeBase: 'support', query: '{{input.question}}', topK: 2 },
    { id: 'answer', type: 'llm', model: 'offline:echo', prompt: 'Answer {{input.question}} from: {{context}}', output_key: 'answer' },
  ],
  edges: [{ from: 'search', to: 'answer' }],
};

describe('knowledge bases and the retrieve node', () => {
  let stack: Stack;
  const send = (path: string, method: string, body: unknown, headers: Record<string, string> = {}) =>
    stack.api(path, { method, body: typeof body === 'string' || Buffer.isBuffer(body) ? (body as never) : JSON.stringify(body), headers });

  beforeAll(async () => {
    stack = await startStack({ serviceEnv: () => ({ SPINDLE_MAX_DOCUMENT_BYTES: '20000' }) });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('ingests Markdown and a PDF, and a run retrieves their chunks into the prompt, traced as a retrieval span', async () => {
    const put = await send('/v1/knowledge-bases/support', 'PUT', {
      embeddingModel: 'offline:hash-256',
      dimensions: 256,
      chunking: { size: 64, overlap: 8 },
    });
    expect(put.status).toBe(201);
    const md = await send('/v1/knowledge-bases/support/documents', 'POST', {
      source: 'refunds.md',
      text: '# Refunds\n\nRefunds are paid to the original card within five working days.',
      metadata: { topic: 'refunds' },
    });
    expect(md.status).toBe(201);
    expect(await md.json()).toMatchObject({ status: 'ready', chunks: 1 });
    const pdf = await send(
      '/v1/knowledge-bases/support/documents?source=shipping.pdf',
      'POST',
      tinyPdf(['Express shipping reaches Europe the next day.']),
      {
        'content-type': 'application/pdf',
      },
    );
    expect(pdf.status).toBe(201);
    expect(await pdf.json()).toMatchObject({ status: 'ready', mediaType: 'application/pdf' });
    // Ingested, the document's text lives in its chunks: its bytes leave the object store.
    expect(await readFileBytes(stack.bus, fileSha256(tinyPdf(['Express shipping reaches Europe the next day.'])))).toBeUndefined();

    expect((await send('/v1/workflows/support', 'PUT', support)).status).toBe(201);
    const started = await send('/v1/workflows/support/runs', 'POST', { input: { question: 'when are refunds paid?' } });
    const { runId } = (await started.json()) as { runId: string };
    const events = await eventually(
      async () => {
        const { events } = (await (await stack.api(`/v1/runs/${runId}/events`)).json()) as { events: RunEvent[] };
        if (!['run.completed', 'run.failed'].includes(events.at(-1)?.type ?? '')) throw new Error('not done');
        return events;
      },
      300,
      100,
    );
    expect(events.filter((e) => e.type.endsWith('failed')).map((e) => e.data)).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'run.completed' });
    const retrieval = events.find((e) => e.type === 'retrieval.completed') as Extract<RunEvent, { type: 'retrieval.completed' }>;
    expect(retrieval.data).toMatchObject({ retriever: 'knowledge_base', knowledgeBase: 'support', version: 1, topK: 2 });
    expect(retrieval.data.chunks[0].text).toContain('Refunds are paid to the original card');
    const prompt = events.find((e) => e.type === 'model.started') as Extract<RunEvent, { type: 'model.started' }>;
    expect(prompt.data.prompt).toContain('Refunds are paid to the original card');
    const trace = await eventually(
      async () => {
        const t = (await (await stack.api(`/v1/runs/${runId}/trace`)).json()) as {
          spans: Array<{ kind: string; output?: { chunks?: unknown[] } }>;
        };
        if (!t.spans?.some((s) => s.kind === 'retrieval')) throw new Error('no retrieval span yet');
        return t;
      },
      100,
      100,
    );
    const span = trace.spans.find((s) => s.kind === 'retrieval')!;
    expect(span.output?.chunks?.length).toBe(retrieval.data.chunkCount);
  });

  it('refuses an empty document, a fake PDF and an oversize one, and writes no chunks for them', async () => {
    const before = ((await (await stack.api('/v1/knowledge-bases/support')).json()) as { chunks: number }).chunks;
    const empty = await send('/v1/knowledge-bases/support/documents', 'POST', { source: 'empty.md', text: '' });
    expect([empty.status, ((await empty.json()) as { code: string }).code]).toEqual([422, 'invalid_document']);
    const fake = await send('/v1/knowledge-bases/support/documents?source=fake.pdf', 'POST', Buffer.from('not a pdf at all'), {
      'content-type': 'application/pdf',
    });
    expect([fake.status, ((await fake.json()) as { code: string }).code]).toEqual([422, 'invalid_document']);
    const big = await send('/v1/knowledge-bases/support/documents?source=big.txt', 'POST', 'x '.repeat(20_000), {
      'content-type': 'text/plain',
    });
    expect(big.status).toBe(413);
    expect(((await (await stack.api('/v1/knowledge-bases/support')).json()) as { chunks: number }).chunks).toBe(before);
  });

  it('refuses an embedding model whose vectors are not the base dimension with 409, before any chunk is written', async () => {
    const put = await send('/v1/knowledge-bases/mismatch', 'PUT', { embeddingModel: 'offline:hash-256', dimensions: 128 });
    expect(put.status).toBe(201);
    const doc = await send('/v1/knowledge-bases/mismatch/documents', 'POST', { source: 'a.md', text: 'Refunds take five days.' });
    expect([doc.status, ((await doc.json()) as { code: string }).code]).toEqual([409, 'embedding_dimension_mismatch']);
    const base = (await (await stack.api('/v1/knowledge-bases/mismatch')).json()) as { chunks: number; documents: number };
    expect(base).toMatchObject({ chunks: 0, documents: 1 });
    const { documents } = (await (await stack.api('/v1/knowledge-bases/mismatch/documents')).json()) as {
      documents: Array<{ status: string; error: { code: string } | null }>;
    };
    expect(documents).toMatchObject([{ status: 'failed', error: { code: 'embedding_dimension_mismatch' } }]);
    const searched = await send('/v1/knowledge-bases/mismatch/query', 'POST', { query: 'refunds' });
    expect([searched.status, ((await searched.json()) as { code: string }).code]).toEqual([409, 'embedding_dimension_mismatch']);
  });

  it('answers 202 pending while no dispatcher answers; two dispatchers back ingest it once', async () => {
    const dispatcher = stack.processes.find((p) => p.name === 'dispatcher')!;
    await stopProcess(dispatcher.child);
    stack.processes.splice(stack.processes.indexOf(dispatcher), 1);
    const text = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} on returns: keep the receipt and the box.`).join('\n\n');
    const res = await send('/v1/knowledge-bases/support/documents', 'POST', { source: 'returns.md', text });
    expect(res.status).toBe(202);
    const pending = (await res.json()) as { documentId: string; status: string };
    expect(pending.status).toBe('pending');
    expect(res.headers.get('location')).toBe(`/v1/knowledge-bases/support/documents/${pending.documentId}`);
    // A base deleted while its document waits lets the document's bytes go with it.
    expect((await send('/v1/knowledge-bases/scratch', 'PUT', { embeddingModel: 'offline:hash-256', dimensions: 256 })).status).toBe(201);
    const scratchText = `Scratch notes ${Date.now()}: nothing else names these bytes.`;
    expect((await send('/v1/knowledge-bases/scratch/documents', 'POST', { source: 'scratch.md', text: scratchText })).status).toBe(202);
    expect(await readFileBytes(stack.bus, fileSha256(Buffer.from(scratchText)))).toBeDefined();
    expect((await stack.api('/v1/knowledge-bases/scratch', { method: 'DELETE' })).status).toBe(204);
    expect(await readFileBytes(stack.bus, fileSha256(Buffer.from(scratchText)))).toBeUndefined();
    await Promise.all([stack.startService('dispatcher'), stack.startService('dispatcher')]);
    const ready = await eventually(
      async () => {
        const doc = (await (await stack.api(`/v1/knowledge-bases/support/documents/${pending.documentId}`)).json()) as {
          status: string;
          chunks: number;
        };
        if (doc.status !== 'ready') throw new Error(`still ${doc.status}`);
        return doc;
      },
      200,
      100,
    );
    expect(ready.chunks).toBeGreaterThan(1);
    const found = (await (
      await send('/v1/knowledge-bases/support/query', 'POST', { query: 'paragraph 7 on returns receipt', topK: 50 })
    ).json()) as { chunks: Array<{ id: string }> };
    const ofDoc = found.chunks.filter((c) => c.id.startsWith(pending.documentId));
    expect(new Set(ofDoc.map((c) => c.id)).size).toBe(ofDoc.length);
    expect(ofDoc.length).toBe(ready.chunks);
  });

  it("answers 404 knowledge_base_not_found for another tenant's base", async () => {
    expect((await send('/v1/tenants', 'POST', { id: 'acme', name: 'Acme' })).status).toBe(201);
    const made = await send('/v1/keys', 'POST', { name: 'acme', scopes: ['runs:read', 'runs:write', 'workflows:write'], tenant: 'acme' });
    const key = ((await made.json()) as { key: string }).key;
    const as = { authorization: `Bearer ${key}` };
    const { documents } = (await (await stack.api('/v1/knowledge-bases/support/documents')).json()) as {
      documents: Array<{ documentId: string }>;
    };
    const documentId = documents[0].documentId;
    for (const [path, method, body] of [
      ['/v1/knowledge-bases/support', 'GET', undefined],
      ['/v1/knowledge-bases/support/documents', 'GET', undefined],
      ['/v1/knowledge-bases/support/documents', 'POST', { source: 'a.md', text: 'hello' }],
      ['/v1/knowledge-bases/support/query', 'POST', { query: 'refunds' }],
      [`/v1/knowledge-bases/support/documents/${documentId}`, 'GET', undefined],
      [`/v1/knowledge-bases/support/documents/${documentId}`, 'DELETE', undefined],
      ['/v1/knowledge-bases/support', 'DELETE', undefined],
    ] as const) {
      const res = await stack.api(path, { method, headers: as, ...(body ? { body: JSON.stringify(body) } : {}) });
      expect([path, method, res.status, ((await res.json()) as { code: string }).code]).toEqual([
        path,
        method,
        404,
        'knowledge_base_not_found',
      ]);
    }
  });
});
