import { describeIssues, SpindleError, zodFieldIssues, type ErrorCode, type FieldIssue, type ZodLikeIssue } from '@spindle/contracts';
import { compileJsonSchema as compileSchema, type JsonSchemaCheck } from '@spindle/engine';
import { z } from 'zod';
import type { InputSchema } from './plugin-definition';

/** A compiled input: checks arguments (returning what `run` receives) and describes them. */
export interface CompiledInput {
  /** Throws `SpindleError('validation_failed')` naming each bad field. */
  validate(args: Record<string, unknown>, subject: string): Record<string, unknown>;
  /** The JSON Schema a model sees; only computed for tools (`describe: true`). */
  jsonSchema: Record<string, unknown>;
}

/** A compiled `output`: checks what user code returned, failing the call with `failureCode` naming each bad field. */
export interface CompiledOutput {
  validate(result: unknown, subject: string): unknown;
}

type SafeParse = (value: unknown) => { success: boolean; data?: unknown; error?: { issues?: ZodLikeIssue[] } };
type StandardValidate = (value: unknown) => { value?: unknown; issues?: readonly StandardIssue[] } | Promise<unknown>;
interface StandardIssue {
  message: string;
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
}
/** Checks a value: the value to go on with, or the issues, each naming its field. */
type Check = (value: unknown) => { ok: true; value: unknown } | { ok: false; issues: FieldIssue[] };

const anyObject = { type: 'object' } as const;

/** Compiles a zod schema or a JSON Schema once, at load, so a broken schema fails at startup. */
export function compileInput(input: InputSchema | undefined, where: string, opts: { describe: boolean }): CompiledInput {
  if (input === undefined) return { validate: (args) => args, jsonSchema: anyObject };
  if (typeof (input as { safeParse?: unknown }).safeParse === 'function') return compileZod(input as { safeParse: SafeParse }, where, opts);
  if (isStandardSchema(input)) {
    if (opts.describe) throw new Error(`${where}: "input" must be a zod 4 schema or a JSON Schema object: a model needs its JSON Schema`);
    return { validate: argsValidator(standardCheck(input, '(input)')), jsonSchema: anyObject };
  }
  return compileJsonSchema(input as Record<string, unknown>, where);
}

/**
 * Compiles a definition's `output` (zod, another Standard Schema, or JSON Schema of any root
 * type): a result that misses it fails the call with `failureCode`, as a broken promise of the code.
 */
export function compileOutput(output: InputSchema | undefined, where: string, failureCode: ErrorCode): CompiledOutput | undefined {
  if (output === undefined) return undefined;
  let check: Check;
  if (typeof (output as { safeParse?: unknown }).safeParse === 'function') check = zodCheck(output as { safeParse: SafeParse }, '(result)');
  else if (isStandardSchema(output)) check = standardCheck(output, '(result)');
  else check = jsonSchemaCheck(output as Record<string, unknown>, where, 'output', '(result)');
  return {
    validate(result, subject) {
      const checked = check(result);
      if (checked.ok) return checked.value;
      const list = describeIssues(checked.issues);
      throw new SpindleError(failureCode, `${subject} returned a result its "output" schema refuses: ${list || 'rejected'}`, {
        issues: checked.issues,
      });
    },
  };
}

function isStandardSchema(schema: unknown): schema is { '~standard': { validate: StandardValidate } } {
  const standard = (schema as { '~standard'?: { validate?: unknown } })['~standard'];
  return typeof standard === 'object' && standard !== null && typeof standard.validate === 'function';
}

function zodCheck(schema: { safeParse: SafeParse }, whole: string): Check {
  return (value) => {
    const result = schema.safeParse(value);
    return result.success ? { ok: true, value: result.data } : { ok: false, issues: zodFieldIssues(result.error?.issues ?? [], { whole }) };
  };
}

function standardCheck(schema: { '~standard': { validate: StandardValidate } }, whole: string): Check {
  return (value) => {
    const result = schema['~standard'].validate(value);
    if (result instanceof Promise)
      return { ok: false, issues: [{ field: whole, message: 'the schema validates asynchronously, which is not supported' }] };
    const { issues } = result as { value?: unknown; issues?: readonly StandardIssue[] };
    if (!issues) return { ok: true, value: (result as { value?: unknown }).value };
    const zodLike = issues.map((i) => ({ message: i.message, path: (i.path ?? []).map((p) => (typeof p === 'object' ? p.key : p)) }));
    return { ok: false, issues: zodFieldIssues(zodLike as ZodLikeIssue[], { whole }) };
  };
}

function argsValidator(check: Check): CompiledInput['validate'] {
  return (args, subject) => {
    const result = check(args);
    if (result.ok) return result.value as Record<string, unknown>;
    throw invalid(subject, result.issues);
  };
}

function compileZod(schema: { safeParse: SafeParse }, where: string, opts: { describe: boolean }): CompiledInput {
  const validate = argsValidator(zodCheck(schema, '(input)'));
  if (!opts.describe) return { validate, jsonSchema: anyObject };
  // Only zod 4 schemas carry `_zod`; a plugin bundling zod 3 cannot be converted here.
  if (!('_zod' in schema))
    throw new Error(
      `${where}: "input" is not a zod 4 schema (zod 3 cannot be converted to JSON Schema); use zod 4 or a JSON Schema object`,
    );
  let jsonSchema: Record<string, unknown>;
  try {
    // `io: 'input'` describes what the caller may send: fields with defaults stay optional.
    jsonSchema = z.toJSONSchema(schema as unknown as z.ZodType, { io: 'input' }) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`${where}: "input" cannot be converted to JSON Schema: ${(e as Error).message}`, { cause: e });
  }
  // Some providers refuse unknown top-level keywords; the dialect is implied by the tool API.
  delete jsonSchema.$schema;
  if (jsonSchema.type !== 'object')
    throw new Error(`${where}: "input" must describe an object (z.object(...)), got ${String(jsonSchema.type ?? 'a non-object schema')}`);
  return { validate, jsonSchema };
}

function compileJsonSchema(schema: Record<string, unknown>, where: string): CompiledInput {
  if (schema.type !== 'object') throw new Error(`${where}: a JSON Schema "input" must have type "object" at its root`);
  return { validate: argsValidator(jsonSchemaCheck(schema, where, 'input', '(input)')), jsonSchema: schema };
}

function jsonSchemaCheck(schema: Record<string, unknown>, where: string, key: 'input' | 'output', whole: string): Check {
  let check: JsonSchemaCheck;
  try {
    check = compileSchema(schema, '');
  } catch (e) {
    throw new Error(`${where}: "${key}" is not a valid JSON Schema: ${(e as Error).message}`, { cause: e });
  }
  return (value) => {
    const result = check(value);
    if (result.ok) return { ok: true, value: result.value };
    return { ok: false, issues: result.issues.map((i) => ({ ...i, field: i.field === '(value)' ? whole : i.field })) };
  };
}

function invalid(subject: string, issues: FieldIssue[]): SpindleError {
  const list = describeIssues(issues);
  return new SpindleError('validation_failed', `invalid arguments for ${subject}: ${list || 'rejected by its input schema'}`, { issues });
}
