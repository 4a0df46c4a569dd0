import { z } from 'zod';
import { httpOperations } from './http-operations';
import { buildOpenApiDocument } from './openapi-document';

const operations = httpOperations({
  workflowDefinition: z.object({ nodes: z.array(z.unknown()) }),
  agentSpec: z.object({ model: z.string() }),
});
const everyRoute = (need: string) => new Map(operations.map((op) => [`${op.method} ${op.path}`, { need }]));

describe('buildOpenApiDocument', () => {
  it('refuses an operation the access table does not know, rather than document it unprotected', () => {
    const access = everyRoute('runs:read');
    access.delete('POST /v1/runs/:id/cancel');
    expect(() => buildOpenApiDocument({ operations, routeAccess: access, version: '1' })).toThrow(
      'no access rule for POST /v1/runs/:id/cancel',
    );
  });

  it('names which duration is which: a run’s wall and working time, a span’s wall time, each described', () => {
    const text = JSON.stringify(buildOpenApiDocument({ operations, routeAccess: everyRoute('public'), version: '1' }));
    expect(text).toContain('"wallMs":{"type":"number","minimum":0,"description":"Wall time in ms: from run.queued');
    expect(text).toContain('"workingMs":{"type":"number","minimum":0,"description":"Working time in ms: wall time less');
    expect(text).toMatch(/"durationMs":\{[^}]*"description":"Wall time in ms, from the span’s start to its end/);
  });

  it("gives the trace the run's scores as the one Score component the scores routes answer with", () => {
    const doc = buildOpenApiDocument({ operations, routeAccess: everyRoute('public'), version: '1' }) as {
      components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> };
    };
    const { RunTrace, ListScores200 } = doc.components.schemas;
    expect(RunTrace.properties.scores).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/Score' } });
    expect(RunTrace.required).toEqual(['run', 'spans', 'rollups', 'scores']);
    expect(ListScores200.properties.scores).toMatchObject({ items: { $ref: '#/components/schemas/Score' } });
    expect(Object.keys(doc.components.schemas.Score.properties)).toEqual(
      expect.arrayContaining(['spanId', 'name', 'value', 'dataType', 'comment', 'by', 'evaluator', 'createdAt']),
    );
  });

  it('writes paths in OpenAPI form, with path, query and header parameters from the schemas', () => {
    const doc = buildOpenApiDocument({ operations, routeAccess: everyRoute('public'), version: '1' }) as {
      paths: Record<string, Record<string, { parameters: Array<{ name: string; in: string; required: boolean }>; security: unknown[] }>>;
    };
    const events = doc.paths['/v1/runs/{id}/events'].get;
    expect(events.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ['id', 'path', true],
      ['after', 'query', false],
      ['Last-Event-ID', 'header', false],
    ]);
    expect(events.security).toEqual([]);
  });

  it("offers the query stream token only where the access table accepts one (a run's events)", () => {
    const access = new Map(
      [...everyRoute('runs:read')].map(([k, v]) => [k, k === 'GET /v1/runs/:id/events' ? { ...v, streamToken: true } : v]),
    );
    const doc = buildOpenApiDocument({ operations, routeAccess: access, version: '1' }) as {
      paths: Record<string, Record<string, { security: unknown[] }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(doc.components.securitySchemes.streamToken).toMatchObject({ type: 'apiKey', in: 'query', name: 'access_token' });
    expect(doc.paths['/v1/runs/{id}/events'].get.security).toEqual([{ apiKey: ['runs:read'] }, { streamToken: [] }]);
    const offering = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => JSON.stringify(op.security).includes('streamToken'))
        .map(([method]) => `${method} ${path}`),
    );
    expect(offering).toEqual(['get /v1/runs/{id}/events']);
  });

  it('describes integer query parameters as integers with their ranges, so a generated client sends numbers', () => {
    const doc = buildOpenApiDocument({ operations, routeAccess: everyRoute('public'), version: '1' }) as {
      paths: Record<string, Record<string, { parameters: Array<{ name: string; schema: Record<string, unknown> }> }>>;
    };
    const param = (path: string, name: string) => doc.paths[path].get.parameters.find((p) => p.name === name)?.schema;
    expect(param('/v1/runs/{id}/events', 'after')).toMatchObject({ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
    expect(param('/v1/runs/{id}/events', 'after')).not.toHaveProperty('pattern');
    expect(param('/v1/runs', 'limit')).toMatchObject({ type: 'integer', minimum: 1 });
  });

  it('names a server, and describes the problem responses each operation can give beside the default', () => {
    const doc = buildOpenApiDocument({ operations, routeAccess: everyRoute('runs:write'), version: '1' }) as {
      servers: unknown[];
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect(Object.keys(doc.paths['/v1/runs/{id}/cancel'].post.responses)).toEqual(
      expect.arrayContaining(['400', '401', '403', '404', '503', 'default']),
    );
    const open = buildOpenApiDocument({ operations, routeAccess: everyRoute('public'), version: '1' }) as typeof doc;
    expect(Object.keys(open.paths['/v1/runs/{id}/cancel'].post.responses)).not.toContain('401');
  });

  it('documents a 429 too_many_streams with Retry-After on every route that streams, and on no other', () => {
    const doc = buildOpenApiDocument({ operations, routeAccess: everyRoute('runs:read'), version: '1' }) as {
      paths: Record<string, Record<string, { responses: Record<string, { description: string; headers?: Record<string, unknown> }> }>>;
    };
    const limited = Object.entries(doc.paths)
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as const))
      .filter(([, op]) => op.responses['429'])
      .map(([route]) => route)
      .sort();
    expect(limited).toEqual([
      'GET /v1/chat/{name}/{chatId}/stream',
      'GET /v1/runs/{id}/events',
      'POST /v1/a2a/{name}',
      'POST /v1/ag-ui/{name}',
      'POST /v1/chat/{name}',
      'POST /v1/mcp',
      'POST /v1/workflows/{name}/runs',
    ]);
    const events = doc.paths['/v1/runs/{id}/events'].get.responses['429'];
    expect(events.description).toContain('too_many_streams');
    expect(events.headers).toHaveProperty('Retry-After');
  });

  it('names request bodies by their input side and responses by their output side', () => {
    const doc = buildOpenApiDocument({ operations, routeAccess: everyRoute('runs:write'), version: '1' }) as {
      components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
    };
    // Nothing of a start's body is required; everything of its answer is.
    expect(doc.components.schemas.StartRunRequest.required ?? []).toEqual([]);
    expect(doc.components.schemas.RunAccepted.required).toEqual(['runId', 'workflow', 'status', 'location', 'eventsLocation']);
    expect(doc.components.schemas.Problem.properties).toHaveProperty('code');
  });
});
