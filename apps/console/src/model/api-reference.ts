/**
 * The OpenAPI document as the console's reference page shows it: tags, then operations with their
 * parameters, request body, answers and the scope they need. Schemas become outlines (one row per
 * field, nested fields indented, `$ref`s followed a few levels deep).
 */

type Json = Record<string, unknown>;

export interface OutlineRow {
  /** `events[].seq`: the field's path. */
  path: string;
  depth: number;
  type: string;
  required: boolean;
  description?: string;
}

export interface ReferenceParameter {
  name: string;
  in: string;
  required: boolean;
  type: string;
  description?: string;
}

export interface ReferenceResponse {
  status: string;
  description: string;
  contentTypes: string[];
  /** The component the JSON (or problem) body is, and its outline. */
  schemaName?: string;
  outline: OutlineRow[];
  /** `text/event-stream`: each frame's event name and its data's component. */
  events: Array<{ event: string; schemaName?: string }>;
}

export interface ReferenceOperation {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  description?: string;
  /** The scope the route needs, `authenticated`, or `public`. */
  access: string;
  parameters: ReferenceParameter[];
  body?: { schemaName?: string; outline: OutlineRow[] };
  responses: ReferenceResponse[];
}

export interface ReferenceTag {
  name: string;
  operations: ReferenceOperation[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const MAX_DEPTH = 3;

export function apiReference(doc: Json): ReferenceTag[] {
  const components = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const tags = new Map<string, ReferenceOperation[]>();
  for (const t of (doc.tags ?? []) as Array<{ name: string }>) tags.set(t.name, []);
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const tag = ((op.tags as string[] | undefined) ?? ['other'])[0];
      if (!tags.has(tag)) tags.set(tag, []);
      tags.get(tag)?.push(operationOf(method, path, op, components));
    }
  }
  return [...tags].filter(([, ops]) => ops.length > 0).map(([name, operations]) => ({ name, operations }));
}

function operationOf(method: string, path: string, op: Json, components: Record<string, Json>): ReferenceOperation {
  const bodySchema = ((op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.['application/json']?.schema as
    Json | undefined;
  return {
    operationId: String(op.operationId ?? `${method} ${path}`),
    method: method.toUpperCase(),
    path,
    summary: String(op.summary ?? ''),
    ...(typeof op.description === 'string' && { description: op.description }),
    access: String(op['x-spindle-access'] ?? (Array.isArray(op.security) && op.security.length === 0 ? 'public' : 'authenticated')),
    parameters: ((op.parameters ?? []) as Json[]).map((p) => ({
      name: String(p.name),
      in: String(p.in),
      required: p.required === true,
      type: typeOf((p.schema ?? {}) as Json),
      ...(typeof p.description === 'string' && { description: p.description }),
    })),
    ...(bodySchema && { body: { schemaName: refName(bodySchema), outline: outline(bodySchema, components) } }),
    responses: Object.entries((op.responses ?? {}) as Record<string, Json>).map(([status, r]) => responseOf(status, r, components)),
  };
}

function responseOf(status: string, response: Json, components: Record<string, Json>): ReferenceResponse {
  const content = (response.content ?? {}) as Record<string, Json>;
  const json = (content['application/json'] ?? content['application/problem+json'])?.schema as Json | undefined;
  const frames = (content['text/event-stream']?.['x-sse-events'] ?? {}) as Record<string, Json>;
  return {
    status,
    description: String(response.description ?? ''),
    contentTypes: Object.keys(content),
    ...(json && { schemaName: refName(json) }),
    outline: json ? outline(json, components) : [],
    events: Object.entries(frames).map(([event, frame]) => ({ event, schemaName: refName((frame.data ?? {}) as Json) })),
  };
}

/** One row per field of an object schema, nested objects and array items indented. */
export function outline(schema: Json, components: Record<string, Json>, prefix = '', depth = 0): OutlineRow[] {
  const resolved = resolve(schema, components);
  const target = resolved.type === 'array' && resolved.items ? resolve(resolved.items as Json, components) : resolved;
  const properties = (target.properties ?? {}) as Record<string, Json>;
  const required = new Set((target.required ?? []) as string[]);
  const arrayMark = resolved.type === 'array' && prefix ? '[]' : '';
  return Object.entries(properties).flatMap(([name, field]) => {
    const path = `${prefix}${arrayMark}${prefix ? '.' : ''}${name}`;
    const row: OutlineRow = {
      path,
      depth,
      type: typeOf(field, components),
      required: required.has(name),
      ...(typeof field.description === 'string' && { description: field.description }),
    };
    return depth + 1 < MAX_DEPTH ? [row, ...outline(field, components, path, depth + 1)] : [row];
  });
}

/** A short type label: `string`, `integer | null`, `RunSummary[]`, `"queued" | "running"`. */
export function typeOf(schema: Json, components: Record<string, Json> = {}): string {
  const ref = refName(schema);
  if (ref) return ref;
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  const union = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (union) return union.map((s) => typeOf(s, components)).join(' | ');
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  if (schema.type === 'array') return `${typeOf((schema.items ?? {}) as Json, components)}[]`;
  return typeof schema.type === 'string' ? schema.type : 'any';
}

function refName(schema: Json): string | undefined {
  return typeof schema.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;
}

/** Follows `$ref` and unwraps a nullable `anyOf`, so an outline sees the object behind it. */
function resolve(schema: Json, components: Record<string, Json>): Json {
  const ref = refName(schema);
  if (ref) return components[ref] ? resolve(components[ref], components) : {};
  const union = schema.anyOf as Json[] | undefined;
  const nonNull = union?.filter((s) => s.type !== 'null');
  return nonNull?.length === 1 ? resolve(nonNull[0], components) : schema;
}
