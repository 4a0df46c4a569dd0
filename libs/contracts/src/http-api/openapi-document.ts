import { z } from 'zod';
import { actorSchema } from '../identity';
import { errorInfoSchema, runEventSchema, runEventSchemas, runEventTypes, usageSchema } from '../run-events';
import { jsonRpcMessageSchema } from '../json-rpc';
import { checkpointSummarySchema, humanRequestSchema } from '../service-queries';
import { scoreSchema } from '../scores';
import { runSummarySchema, runTraceSchema, traceSpanSchema } from '../trace-queries';
import { queryIntegerRange } from './decimal-integer';
import { REQUEST_HEADERS, type HttpOperation, type HttpResponseSpec } from './http-operations';
import { PROBLEM_CONTENT_TYPE, problemSchema } from './problem.schema';
import { pathParamSchemas } from './request.schemas';
import * as rs from './response.schemas';
import { RUN_STREAM_FRAMES, streamErrorFrameSchema, tokenFrameSchema } from './run-event-stream.schemas';

export type JsonObject = Record<string, unknown>;

/** Who may call a route, as the gateway's route table says (`ROUTE_ACCESS`). */
export interface OperationAccess {
  readonly need: string;
  /** A stream token in `?access_token=` is accepted besides `Authorization`. */
  readonly streamToken?: boolean;
}

export interface OpenApiOptions {
  readonly operations: readonly HttpOperation[];
  /** Keyed `METHOD /v1/path/:param`; every operation must have an entry. */
  readonly routeAccess: ReadonlyMap<string, OperationAccess>;
  readonly version: string;
  /** The identity provider's discovery document, when the gateway accepts its tokens. */
  readonly oidcDiscoveryUrl?: string;
}

const COMPONENT = (id: string) => `#/components/schemas/${id}`;
/** Where zod puts definitions that several registered schemas share. */
const SHARED = '__shared';
const JSON_SCHEMA_OPTIONS = { target: 'draft-2020-12', unrepresentable: 'any', cycles: 'ref', reused: 'inline' } as const;

/** Response components with a name of their own; the rest are named after the operation that answers with them. */
const NAMED_OUTPUTS: ReadonlyArray<[string, z.ZodType]> = [
  ['Problem', problemSchema],
  ['Actor', actorSchema],
  ['Usage', usageSchema],
  ['ErrorInfo', errorInfoSchema],
  ['RunSummary', runSummarySchema],
  ['TraceSpan', traceSpanSchema],
  ['Score', scoreSchema],
  ['RunTrace', runTraceSchema],
  ['RunEvent', runEventSchema],
  ...runEventTypes.map((type): [string, z.ZodType] => [`RunEvent.${type}`, runEventSchemas[type]]),
  ['TokenFrame', tokenFrameSchema],
  ['StreamError', streamErrorFrameSchema],
  ['HumanRequest', humanRequestSchema],
  ['CheckpointSummary', checkpointSummarySchema],
  ['RunAccepted', rs.runAcceptedSchema],
  ['ApiKey', rs.apiKeyViewSchema],
  ['Tenant', rs.tenantSchema],
  ['AuditRecord', rs.auditRecordSchema],
];

/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the zod schemas the gateway validates
 * with (requests: their input side) and answers with (responses: their output side). Pure.
 */
export function buildOpenApiDocument(options: OpenApiOptions): rs.OpenApiDocument {
  const outputs = new SchemaNames();
  for (const [id, schema] of NAMED_OUTPUTS) outputs.name(schema, id);
  const inputs = new SchemaNames();
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const op of options.operations) {
    const access = options.routeAccess.get(`${op.method} ${op.path}`);
    if (!access) throw new Error(`no access rule for ${op.method} ${op.path}`);
    const path = op.path.replace(/:([A-Za-z]+)/g, '{$1}');
    (paths[path] ??= {})[op.method.toLowerCase()] = operationObject(op, access, outputs, inputs, options.oidcDiscoveryUrl !== undefined);
  }
  const schemas = { ...outputs.toJsonSchemas('output'), ...inputs.toJsonSchemas('input') };
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Spindle API',
      version: options.version,
      description:
        'Durable agent workflows over HTTP. Every refusal is `application/problem+json` with a stable `code`. ' +
        "Lists page with `limit` and the previous page's `nextCursor` passed as `cursor`.",
    },
    servers: [{ url: '/', description: 'The gateway that serves this document.' }],
    tags: [...new Set(options.operations.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: { schemas, securitySchemes: securitySchemes(options.oidcDiscoveryUrl) },
  };
}

function operationObject(op: HttpOperation, access: OperationAccess, outputs: SchemaNames, inputs: SchemaNames, oidc: boolean): JsonObject {
  const Name = op.operationId[0].toUpperCase() + op.operationId.slice(1);
  const responses: JsonObject = {};
  for (const [status, spec] of Object.entries(op.responses)) responses[status] = responseObject(spec, `${Name}${status}`, outputs);
  if (Object.values(op.responses).some(isStream)) responses['429'] = TOO_MANY_STREAMS;
  for (const [status, description] of problemStatusesOf(op, access)) responses[status] ??= problemResponse(description);
  responses.default = {
    description: 'A problem: the request was refused or failed (`code` says why).',
    content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: COMPONENT('Problem') } } },
  };
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description && { description: op.description }),
    parameters: [...pathParameters(op), ...queryParameters(op), ...headerParameters(op)],
    ...(op.body && {
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: COMPONENT(inputs.name(op.body, `${Name}Request`)) } } },
      },
    }),
    ...(op.rawBody && { requestBody: { required: true, content: binaryContent(op.rawBody) } }),
    responses,
    security: security(access, oidc),
    'x-spindle-access': access.need,
  };
}

/**
 * The refusals an operation can give, read off what it takes: a body or query can be invalid
 * (400) or, as a body, too large (413); a path names something that may not be there (404);
 * credentials may be missing (401) or short of the scope (403); a store may be down (503).
 */
function problemStatusesOf(op: HttpOperation, access: OperationAccess): Array<[string, string]> {
  const statuses: Array<[string, string]> = [];
  const takesInput = Boolean(op.body || op.rawBody || op.query || op.path.includes(':'));
  if (takesInput) statuses.push(['400', '`validation_failed` (each field at fault in `issues`), `invalid_json` and the like.']);
  if (access.need !== 'public') statuses.push(['401', '`unauthenticated`: no credentials, or ones that are not (or no longer) valid.']);
  if (access.need !== 'public' && access.need !== 'authenticated') {
    const otherRun = access.streamToken ? ', or the stream token is for another run' : '';
    statuses.push(['403', `\`forbidden\`: the credentials lack the \`${access.need}\` scope${otherRun}.`]);
  }
  if (op.path.includes(':'))
    statuses.push(['404', 'What the path names is not there, or not in the caller’s tenant (`run_not_found`, …).']);
  if (op.body || op.rawBody) statuses.push(['413', '`payload_too_large`: the body is larger than the gateway takes.']);
  if (access.need !== 'public')
    statuses.push(['503', '`service_unavailable`: a store is unreachable for now; retry after `Retry-After` seconds.']);
  return statuses;
}

const problemResponse = (description: string): JsonObject => ({
  description,
  content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: COMPONENT('Problem') } } },
});

const isStream = (spec: HttpResponseSpec): boolean =>
  Boolean(spec.eventStream || spec.jsonRpcStream || spec.agUiStream || spec.uiMessageStream);

/** Every route that can answer a stream counts it against the caller's key and tenant (the gateway's stream limits). */
const TOO_MANY_STREAMS: JsonObject = {
  description:
    '`too_many_streams`: the credential or its tenant holds as many open event streams on this gateway as it may ' +
    '(100 per key and 500 per tenant unless configured). Close one, or retry after `Retry-After` seconds. ' +
    'Other refusals of this status (`rate_limited`, `quota_exceeded`) have the same shape.',
  headers: { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } } },
  content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: COMPONENT('Problem') } } },
};

function responseObject(spec: HttpResponseSpec, fallbackName: string, outputs: SchemaNames): JsonObject {
  const content: JsonObject = {};
  if (spec.json) content['application/json'] = { schema: { $ref: COMPONENT(outputs.name(spec.json, fallbackName)) } };
  if (spec.binary) Object.assign(content, binaryContent(spec.binary));
  if (spec.eventStream) content['text/event-stream'] = eventStreamMedia();
  if (spec.jsonRpcStream) content['text/event-stream'] = jsonRpcStreamMedia(outputs);
  if (spec.uiMessageStream) {
    content['text/event-stream'] = {
      schema: {
        type: 'string',
        description: "Server-sent events: `data: <one UI message chunk>` (the AI SDK's UI message stream), then `data: [DONE]`.",
      },
    };
  }
  if (spec.agUiStream) {
    content['text/event-stream'] = {
      schema: { type: 'string', description: 'Server-sent events: `data: <one AG-UI event>` (AG-UI 1.0, https://docs.ag-ui.com).' },
    };
  }
  return { description: spec.description, ...(Object.keys(content).length > 0 && { content }) };
}

/** Raw bytes of each media type (OpenAPI 3.1: a media type with no schema is any bytes; `contentMediaType` says which). */
function binaryContent(mediaTypes: readonly string[]): JsonObject {
  return Object.fromEntries(mediaTypes.map((t) => [t, { schema: { type: 'string', contentMediaType: t } }]));
}

/** An event stream whose frames are `event: message` with one JSON-RPC message each (MCP's streamable HTTP). */
function jsonRpcStreamMedia(outputs: SchemaNames): JsonObject {
  return {
    schema: { type: 'string', description: 'Server-sent events: `event: message`, `data: <one JSON-RPC message>`.' },
    'x-sse-events': {
      message: {
        description: 'A notification, or the answer that ends the stream.',
        data: { $ref: COMPONENT(outputs.name(jsonRpcMessageSchema, 'JsonRpcMessage')) },
      },
    },
  };
}

/** SSE has no schema keyword in OpenAPI 3.1: the body is text, and `x-sse-events` names each frame's event and `data` schema. */
function eventStreamMedia(): JsonObject {
  return {
    schema: { type: 'string', description: 'Server-sent events: `id: <seq>`, `event: <type>`, `data: <JSON>`; `: heartbeat` comments.' },
    'x-sse-events': Object.fromEntries(
      RUN_STREAM_FRAMES.map((f) => [
        f.event,
        {
          description: f.description,
          id: f.hasId,
          data: { $ref: COMPONENT(f.event === 'token' ? 'TokenFrame' : f.event === 'error' ? 'StreamError' : `RunEvent.${f.event}`) },
        },
      ]),
    ),
  };
}

function pathParameters(op: HttpOperation): JsonObject[] {
  return [...op.path.matchAll(/:([A-Za-z]+)/g)].map(([, name]) => {
    const schema = op.params?.[name] ?? pathParamSchemas[name as keyof typeof pathParamSchemas];
    if (!schema) throw new Error(`no schema for path parameter "${name}" of ${op.operationId}`);
    const json = inline(schema);
    return {
      name,
      in: 'path',
      required: true,
      ...(typeof json.description === 'string' && { description: json.description }),
      schema: json,
    };
  });
}

function queryParameters(op: HttpOperation): JsonObject[] {
  if (!op.query) return [];
  const json = inline(op.query) as { properties?: Record<string, JsonObject>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    ...(typeof schema.description === 'string' && { description: schema.description }),
    schema,
  }));
}

function headerParameters(op: HttpOperation): JsonObject[] {
  return (op.headers ?? []).map((name) => ({
    name,
    in: 'header',
    required: false,
    description: REQUEST_HEADERS[name].description,
    schema: inline(REQUEST_HEADERS[name].schema),
  }));
}

function inline(schema: z.ZodType): JsonObject {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    ...JSON_SCHEMA_OPTIONS,
    io: 'input',
    override: integerParameter,
  }) as JsonObject;
  return json;
}

/** A query or header integer is sent as digits, but described as the integer it is, with its range (what a generated client types). */
function integerParameter(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const range = queryIntegerRange(ctx.zodSchema as z.ZodType);
  if (!range) return;
  delete ctx.jsonSchema.pattern;
  Object.assign(ctx.jsonSchema, { type: 'integer', minimum: range.min, maximum: range.max });
}

/** API keys and identity-provider tokens both travel as `Authorization: Bearer`; a scope names what the route needs. */
function security({ need, streamToken }: OperationAccess, oidc: boolean): JsonObject[] {
  if (need === 'public') return [];
  const scopes = need === 'authenticated' ? [] : [need];
  return [{ apiKey: scopes }, ...(oidc ? [{ oidc: scopes }] : []), ...(streamToken ? [{ streamToken: [] }] : [])];
}

function securitySchemes(oidcDiscoveryUrl: string | undefined): JsonObject {
  return {
    apiKey: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'spk_<id>_<secret>',
      description: 'An API key (`spk_…`). Its scopes are listed on the key; a route needs the one its operation names.',
    },
    streamToken: {
      type: 'apiKey',
      in: 'query',
      name: 'access_token',
      description:
        "A run's stream token (`sst_…`, from `createStreamToken`), for a browser's `EventSource`, which cannot send " +
        "`Authorization`. Accepted only on that run's events; it reads as the API key that minted it, for minutes.",
    },
    ...(oidcDiscoveryUrl && {
      oidc: {
        type: 'openIdConnect',
        openIdConnectUrl: oidcDiscoveryUrl,
        description: 'An access token of the identity provider, sent as `Authorization: Bearer`; scopes as for API keys.',
      },
    }),
  };
}

/** Named component schemas: each zod schema once, under the first name it was given. */
class SchemaNames {
  private readonly registry = z.registry<{ id: string }>();
  private readonly ids = new Map<z.ZodType, string>();

  name(schema: z.ZodType, id: string): string {
    const known = this.ids.get(schema);
    if (known) return known;
    this.ids.set(schema, id);
    this.registry.add(schema, { id });
    return id;
  }

  /**
   * Each named schema as a component. Schemas zod could only define once for several components
   * (recursive ones) come as `__shared`'s `$defs`; they become components of their own.
   */
  toJsonSchemas(io: 'input' | 'output'): Record<string, JsonObject> {
    const { schemas } = z.toJSONSchema(this.registry, { ...JSON_SCHEMA_OPTIONS, io, uri: COMPONENT });
    const sharedPrefix = io === 'input' ? 'SharedInput.' : 'Shared.';
    const out: Record<string, JsonObject> = {};
    for (const [id, json] of Object.entries(schemas)) {
      const { $schema: _dialect, $id: _uri, id: _id, ...rest } = json as JsonObject;
      if (id === SHARED) {
        for (const [def, schema] of Object.entries((rest.$defs ?? {}) as Record<string, JsonObject>)) out[sharedPrefix + def] = schema;
      } else out[id] = rest;
    }
    const sharedRef = new RegExp(`${COMPONENT(SHARED).replace(/[$/#]/g, '\\$&')}#/\\$defs/`, 'g');
    return JSON.parse(JSON.stringify(out).replace(sharedRef, COMPONENT(sharedPrefix))) as Record<string, JsonObject>;
  }
}
