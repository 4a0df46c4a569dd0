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
