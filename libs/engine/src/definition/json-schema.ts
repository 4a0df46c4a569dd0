import { ajvFieldIssues, canonicalJson } from '@spindle/contracts';
import type { FieldIssue } from '@spindle/contracts';
import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import { ajvLinearRegExp, RegexLimitError } from '../expressions/linear-regex';
import { jsonSchemaLimitProblem } from './json-schema-limits';
import { useLinearUniqueItems } from './json-unique-items';

export type JsonSchemaCheck = (value: unknown) => { ok: true; value: unknown } | { ok: false; issues: FieldIssue[] };

/**
 * Compiles a JSON Schema (draft-07 unless it declares 2019-09 or 2020-12) into a check that
 * returns the value with defaults filled in (on a copy) or the issues, each naming its field
 * under `root` (e.g. `parameters.limit`). Throws when the schema itself is not valid or is over
 * a bound of json-schema-limits.ts. Patterns run on the linear-time engine (RE2 semantics); a
 * string too long to match within `MAX_REGEX_WORK` is refused with an issue, never matched.
 */
export function compileJsonSchema(schema: Record<string, unknown>, root: string): JsonSchemaCheck {
  const check = compiled(schema);
  return (value) => {
    const copy = value === undefined ? undefined : structuredClone(value);
    try {
      if (check(copy)) return { ok: true, value: copy };
    } catch (e) {
      if (!(e instanceof RegexLimitError)) throw e;
      return { ok: false, issues: [{ field: root || '(value)', message: e.message }] };
    }
    return { ok: false, issues: ajvFieldIssues(check.errors ?? [], { root, whole: '(value)' }) };
  };
}

/** Why a schema does not compile, or undefined when it does. */
export function jsonSchemaProblem(schema: Record<string, unknown>): string | undefined {
  try {
    compileJsonSchema(schema, '');
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * Compiled checks by schema content: each run brings its definition as new objects, and ajv's
 * own cache is keyed by object (so it recompiled per run and grew without bound). Each schema
 * is removed from ajv once compiled; this cache holds the most recently used ones.
 */
const CACHE_SIZE = 256;
const checks = new Map<string, ValidateFunction>();

function compiled(schema: Record<string, unknown>): ValidateFunction {
  const problem = jsonSchemaLimitProblem(schema);
  if (problem) throw new Error(`the schema ${problem}`);
  const key = canonicalJson(schema);
  let check = checks.get(key);
  if (check) {
    checks.delete(key); // re-inserted below: the Map's order is the eviction order
  } else {
    const ajv = ajvFor(schema.$schema);
    try {
      check = ajv.compile(schema);
    } finally {
      ajv.removeSchema(schema);
    }
    if (checks.size >= CACHE_SIZE) checks.delete(checks.keys().next().value as string);
  }
  checks.set(key, check);
  return check;
}

const ajvs = new Map<string, Ajv>();

function ajvFor(declared: unknown): Ajv {
  const draft =
    typeof declared === 'string' && declared.includes('2020-12')
      ? '2020'
      : typeof declared === 'string' && declared.includes('2019-09')
        ? '2019'
        : '07';
  let ajv = ajvs.get(draft);
  if (!ajv) {
    // strict: false so unknown formats and vendor keywords do not make a schema unusable.
    const options = {
      allErrors: true,
      useDefaults: true,
      strict: false,
      validateFormats: false,
      logger: false as const,
      code: { regExp: ajvLinearRegExp },
    };
    ajv = draft === '2020' ? new Ajv2020(options) : draft === '2019' ? new Ajv2019(options) : new Ajv(options);
    useLinearUniqueItems(ajv);
    ajvs.set(draft, ajv);
  }
  return ajv;
}
