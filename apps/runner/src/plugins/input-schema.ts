import { describeIssues, SpindleError, zodFieldIssues, type FieldIssue, type ZodLikeIssue } from '@spindle/contracts';
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

type SafeParse = (value: unknown) => { success: boolean; data?: unknown; error?: { issues?: ZodLikeIssue[] } };

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
    throw invalid(subject, zodFieldIssues(result.error?.issues ?? [], { whole: '(input)' }));
  };
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
  let check: JsonSchemaCheck;
  try {
    check = compileSchema(schema, '');
  } catch (e) {
    throw new Error(`${where}: "input" is not a valid JSON Schema: ${(e as Error).message}`, { cause: e });
  }
  return {
    validate: (args, subject) => {
      const result = check(args);
      if (result.ok) return result.value as Record<string, unknown>;
      throw invalid(
        subject,
        result.issues.map((i) => ({ ...i, field: i.field === '(value)' ? '(input)' : i.field })),
      );
    },
    jsonSchema: schema,
  };
}

function invalid(subject: string, issues: FieldIssue[]): SpindleError {
  const list = describeIssues(issues);
  return new SpindleError('validation_failed', `invalid arguments for ${subject}: ${list || 'rejected by its input schema'}`, { issues });
}
