import { ajvFieldIssues, describeIssues } from '@spindle/contracts';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import { linearRegExp } from './linear-regexp';

export type JsonAnswerCheck = { ok: true; data: unknown } | { ok: false; problems: string[] };

/**
 * Checks a JSON answer while the person types it: it must parse, then match the form's schema.
 * Same drafts and options as the engine's check; the gateway's check still decides, this one only
 * saves a round trip. A schema the browser cannot compile is left to the gateway.
 */
export function checkJsonAnswer(text: string, schema: Record<string, unknown> | undefined): JsonAnswerCheck {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { ok: false, problems: [`data: not JSON (${(e as Error).message})`] };
  }
  const validate = schema ? compiled(schema) : undefined;
  try {
    if (!validate || validate(structuredClone(data))) return { ok: true, data };
  } catch (e) {
    return { ok: false, problems: [`data: ${(e as Error).message}`] };
  }
  return { ok: false, problems: (validate.errors ?? []).map(describe) };
}

const cache = new WeakMap<object, ValidateFunction | null>();

function compiled(schema: Record<string, unknown>): ValidateFunction | undefined {
  if (!cache.has(schema)) {
    try {
      cache.set(schema, ajvFor(schema.$schema).compile(schema));
    } catch {
      cache.set(schema, null);
    }
  }
  return cache.get(schema) ?? undefined;
}

// uniqueItems keeps ajv's pairwise check here (the engine checks it in one pass): same result, and
// the data is what this person typed.
function ajvFor(declared: unknown): Ajv {
  const options = {
    allErrors: true,
    useDefaults: true,
    strict: false,
    validateFormats: false,
    logger: false as const,
    code: { regExp: linearRegExp },
  };
  const name = typeof declared === 'string' ? declared : '';
  return name.includes('2020-12') ? new Ajv2020(options) : name.includes('2019-09') ? new Ajv2019(options) : new Ajv(options);
}

function describe(e: ErrorObject): string {
  return describeIssues(ajvFieldIssues([e], { root: 'data', whole: 'data' }));
}
