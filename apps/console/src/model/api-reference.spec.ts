import { buildOpenApiDocument, httpOperations } from '@spindle/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apiReference, outline, typeOf } from './api-reference';

const operations = httpOperations({
  workflowDefinition: z.object({ kind: z.literal('graph') }),
  agentSpec: z.object({ model: z.string() }),
});
const access = new Map(
  operations.map((op) => [`${op.method} ${op.path}`, { need: op.path === '/v1/openapi.json' ? 'public' : 'runs:read' }]),
);
const doc = buildOpenApiDocument({ operations, routeAccess: access, version: '1' }) as Record<string, unknown>;
const reference = apiReference(doc);
const find = (operationId: string) => reference.flatMap((t) => t.operations).find((o) => o.operationId === operationId);

describe('the API reference of the real document', () => {
  it('lists every operation once, under its tag', () => {
    expect(reference.map((t) => t.name)).toEqual([
      'meta',
      'workflows',
      'agents',
      'runners',
      'runs',
      'threads',
      'webhooks',
      'schedules',
      'knowledge',
      'datasets',
      'experiments',
      'replays',
      'requests',
      'files',
      'admin',
      'protocols',
    ]);
    expect(reference.flatMap((t) => t.operations)).toHaveLength(operations.length);
    expect(find('getOpenApiDocument')?.access).toBe('public');
    expect(find('getRun')?.access).toBe('runs:read');
  });

  it('shows parameters with their place, whether required, and their type', () => {
    const parameters = find('listRuns')?.parameters ?? [];
    expect(parameters.map((p) => p.name)).toEqual([
      'workflow',
      'status',
      'q',
      'from',
      'to',
      'errorCode',
      'parameter',
      'internal',
      'score',
      'sort',
      'order',
      'limit',
      'cursor',
    ]);
    expect(parameters.find((p) => p.name === 'status')).toEqual({
      name: 'status',
      in: 'query',
      required: false,
      type: '"queued" | "running" | "awaiting_input" | "awaiting_approval" | "completed" | "failed" | "canceled"',
    });
    expect(parameters.find((p) => p.name === 'sort')).toEqual({
      name: 'sort',
      in: 'query',
      required: false,
      type: '"started" | "duration" | "tokens" | "cost" | "score"',
      description: 'The column the list is ordered by (default `started`).',
    });
    expect(parameters.find((p) => p.name === 'limit')).toEqual({
      name: 'limit',
      in: 'query',
      required: false,
      type: 'integer',
      description: 'Page size: 1 to 200, default 50.',
    });
  });

  it('outlines request and response bodies through their components', () => {
    const start = find('startRun');
    expect(start?.body?.schemaName).toBe('StartRunRequest');
    expect(start?.body?.outline.find((r) => r.path === 'cancelOnDisconnect')).toMatchObject({ type: 'boolean', required: false });
    const accepted = start?.responses.find((r) => r.status === '202');
    expect(accepted?.schemaName).toBe('RunAccepted');
    expect(accepted?.outline.find((r) => r.path === 'workflow.version')).toMatchObject({ depth: 1, type: 'integer', required: true });
    const list = find('listRuns')?.responses.find((r) => r.status === '200');
    expect(list?.outline.find((r) => r.path === 'runs')?.type).toBe('RunSummary[]');
    expect(list?.outline.find((r) => r.path === 'runs[].status')).toMatchObject({ depth: 1, required: true });
  });

  it('names the frames of the event stream and the problem every operation may answer', () => {
    const events = find('getRunEvents')?.responses.find((r) => r.status === '200');
    expect(events?.contentTypes).toEqual(['application/json', 'text/event-stream']);
    expect(events?.events).toContainEqual({ event: 'run.completed', schemaName: 'RunEvent.run.completed' });
    expect(events?.events).toContainEqual({ event: 'token', schemaName: 'TokenFrame' });
    const problem = find('getRun')?.responses.find((r) => r.status === 'default');
    expect(problem?.schemaName).toBe('Problem');
    expect(problem?.outline.map((r) => r.path)).toContain('code');
  });
});

describe('typeOf and outline', () => {
  it('labels unions, nullable references and arrays', () => {
    expect(typeOf({ anyOf: [{ $ref: '#/components/schemas/Actor' }, { type: 'null' }] })).toBe('Actor | null');
    expect(typeOf({ type: ['string', 'null'] })).toBe('string | null');
    expect(typeOf({ type: 'array', items: { type: 'integer' } })).toBe('integer[]');
  });

  it('stops at a depth, so a recursive schema cannot run away', () => {
    const components = { Node: { type: 'object', properties: { child: { $ref: '#/components/schemas/Node' } } } };
    expect(outline({ $ref: '#/components/schemas/Node' }, components).map((r) => r.path)).toEqual([
      'child',
      'child.child',
      'child.child.child',
    ]);
  });
});
