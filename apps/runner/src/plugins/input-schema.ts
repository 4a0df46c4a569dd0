import { SpindleError, type FieldIssue } from '@spindle/contracts';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import { z } from 'zod';
import type { InputSchema } from './plugin-definition';

/** A compiled input: checks arguments (returning what `run` receives) and describes them. */
export interface CompiledInput {
  /** Throws `SpindleError('validation_failed')` naming each bad field. */
  validate(args: Record<string, unknown>, subject: string): Record<string, unknown>;
  /** The JSON Schema a model sees; only computed for tools (`describe: true`). */
  jsonSchema: Record<string, unknown>;
}

type SafeParse = (value: unknown) => { success: boolean; data?: unknown; error?: { issues?: { path?: PropertyKey[]; message: string }[] } };

const anyObject = { type: 'object' } as const;

/** Compiles a zod schema or a JSON Schema once, at load, so a broken schema fails at startup. */
export function compileInput(input: InputSchema | undefined, where: string, opts: { describe: boolean }): CompiledInput {
  if (input === undefined) return { validate: (args) => args, jsonSchema: anyObject };
  if (typeof (input as { safeParse?: unknown }).safeParse === 'function') return compileZod(input as { safeParse: SafeParse }, where, opts);
  return compileJsonSchema(input as Record<string, unknown>, where);
}

function compileZod(schema: { safeParse: SafeParse }, where: string, opts: { describe: boolean }): CompiledInput {
  const validate = (args: Record<string, unknown>, subject: string) => {
    const result = schema.safeParse(args);
    if (result.success) return result.data as Record<string, unknown>;
    throw invalid(subject, (result.error?.issues ?? []).map((i) => ({ field: fieldName(i.path ?? []), message: i.message })));
  };
  if (!opts.describe) return { validate, jsonSchema: anyObject };
  // Only zod 4 schemas carry `_zod`; a plugin bundling zod 3 cannot be converted here.
  if (!('_zod' in schema)) throw new Error(`${where}: "input" is not a zod 4 schema (zod 3 cannot be converted to JSON Schema); use zod 4 or a JSON Schema object`);
  let jsonSchema: Record<string, unknown>;
  try {
    // `io: 'input'` describes what the caller may send: fields with defaults stay optional.
    jsonSchema = z.toJSONSchema(schema as unknown as z.ZodType, { io: 'input' }) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`${where}: "input" cannot be converted to JSON Schema: ${(e as Error).message}`, { cause: e });
  }
  // Some providers refuse unknown top-level keywords; the dialect is implied by the tool API.
  delete jsonSchema.$schema;
  if (jsonSchema.type !== 'object') throw new Error(`${where}: "input" must describe an object (z.object(...)), got ${String(jsonSchema.type ?? 'a non-object schema')}`);
  return { validate, jsonSchema };
}

function compileJsonSchema(schema: Record<string, unknown>, where: string): CompiledInput {
  if (schema.type !== 'object') throw new Error(`${where}: a JSON Schema "input" must have type "object" at its root`);
  let check: ValidateFunction;
  try {
    check = ajvFor(schema.$schema).compile(schema);
  } catch (e) {
    throw new Error(`${where}: "input" is not a valid JSON Schema: ${(e as Error).message}`, { cause: e });
  }
  return {
    validate: (args, subject) => {
      // Ajv fills defaults in place; the caller's object stays untouched.
      const copy = structuredClone(args);
      if (check(copy)) return copy;
      throw invalid(subject, (check.errors ?? []).map(ajvIssue));
    },
    jsonSchema: schema,
  };
}

const ajvs = new Map<string, Ajv>();

/** Picks the draft the schema declares (draft-07 when it declares none). */
function ajvFor(declared: unknown): Ajv {
  const draft = typeof declared === 'string' && declared.includes('2020-12') ? '2020' : typeof declared === 'string' && declared.includes('2019-09') ? '2019' : '07';
  let ajv = ajvs.get(draft);
  if (!ajv) {
    // strict: false so unknown formats and vendor keywords in plugin schemas do not stop the runner.
    const options = { allErrors: true, useDefaults: true, strict: false, validateFormats: false, logger: false as const };
    ajv = draft === '2020' ? new Ajv2020(options) : draft === '2019' ? new Ajv2019(options) : new Ajv(options);
    ajvs.set(draft, ajv);
  }
  return ajv;
}

function ajvIssue(e: ErrorObject): FieldIssue {
  const path = e.instancePath.split('/').slice(1).map((s) => (/^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, '/').replace(/~0/g, '~')));
  const extra = (e.params as { missingProperty?: string; additionalProperty?: string });
  const leaf = extra.missingProperty ?? extra.additionalProperty;
  return { field: fieldName(leaf === undefined ? path : [...path, leaf]), message: e.message ?? e.keyword };
}

/** `['items', 0, 'id']` → `items[0].id`; the whole input is `(input)`. */
function fieldName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(input)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

function invalid(subject: string, issues: FieldIssue[]): SpindleError {
  const list = issues.map((i) => `${i.field}: ${i.message}`).join('; ');
  return new SpindleError('validation_failed', `invalid arguments for ${subject}: ${list || 'rejected by its input schema'}`, { issues });
}
