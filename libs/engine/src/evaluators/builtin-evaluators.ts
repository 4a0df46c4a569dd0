import {
  canonicalJson,
  evaluatorScoreName,
  type BuiltinEvaluatorSpec,
  type EvaluatorSpec,
  type FieldIssue,
  type ScoreValue,
  type WorkflowEvaluatorSpec,
} from '@spindle/contracts';
import { compileJsonSchema, jsonSchemaProblem } from '../definition/json-schema';
import { compileLinearRegex, linearRegexProblem } from '../expressions/linear-regex';

/** What a built-in evaluator reads of an ended run. */
export interface EvaluatedRun {
  output: unknown;
  wallMs: number;
  costUsd: number | undefined;
}

/** A built-in's judgement: the score's name and value, and why. */
export interface Judgement {
  name: string;
  value: ScoreValue;
  comment: string;
}

/** Texts longer than this are judged on their first this many characters (a regex's work is bounded). */
const MAX_JUDGED_TEXT = 20_000;

/**
 * Judges a run with a built-in evaluator: no model, no I/O, the same answer for the same run.
 * Throws `EvaluatorFailure` when it cannot judge (the path is not in the output, a cost is unknown).
 */
export function judge(spec: BuiltinEvaluatorSpec, run: EvaluatedRun): Judgement {
  const name = evaluatorScoreName(spec);
  const at = (path: string | undefined) => valueAt(run.output, path);
  switch (spec.type) {
    case 'exact_match': {
      const same = canonicalJson(at(spec.path) ?? null) === canonicalJson(spec.expected ?? null);
      return { name, value: same, comment: same ? 'the output is the expected value' : 'the output differs from the expected value' };
    }
    case 'json_schema': {
      const checked = compileJsonSchema(spec.schema, spec.path ?? 'output')(at(spec.path));
      if (checked.ok) return { name, value: true, comment: 'the output fits the schema' };
      return { name, value: false, comment: checked.issues.map((i) => `${i.field}: ${i.message}`).join('; ') };
    }
    case 'contains': {
      const text = textOf(at(spec.path));
      const found = spec.caseSensitive ? text.includes(spec.text) : text.toLowerCase().includes(spec.text.toLowerCase());
      return { name, value: found, comment: found ? `contains "${spec.text}"` : `does not contain "${spec.text}"` };
    }
    case 'regex': {
      const matched = compileLinearRegex(spec.pattern, 're2').test(textOf(at(spec.path)));
      return { name, value: matched, comment: matched ? `matches ${spec.pattern}` : `does not match ${spec.pattern}` };
    }
    case 'numeric_tolerance': {
      const value = at(spec.path);
      const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      if (!Number.isFinite(number)) throw new EvaluatorFailure(`${spec.path ?? 'the output'} is not a number`);
      const within = Math.abs(number - spec.expected) <= spec.tolerance;
      return { name, value: within, comment: `${number} is ${within ? 'within' : 'outside'} ${spec.expected} ± ${spec.tolerance}` };
    }
    case 'latency_below': {
      const below = run.wallMs < spec.maxMs;
      return { name, value: below, comment: `wall ${Math.round(run.wallMs)} ms ${below ? '<' : '≥'} ${spec.maxMs} ms` };
    }
    case 'cost_below': {
      if (run.costUsd === undefined) throw new EvaluatorFailure('the run’s cost is unknown (a model without a price)');
      const below = run.costUsd < spec.maxUsd;
      return { name, value: below, comment: `$${run.costUsd} ${below ? '<' : '≥'} $${spec.maxUsd}` };
    }
  }
}

/**
 * What a judge workflow's run said: its output's `scorePath` as the score (a number, a boolean or
 * a short label), `commentPath` as the comment. Throws `EvaluatorFailure` when it said no score.
 */
export function workflowVerdict(spec: WorkflowEvaluatorSpec, judgeOutput: unknown): Judgement {
  const value = valueAt(judgeOutput, spec.scorePath);
  const comment = spec.commentPath === undefined ? undefined : valueAt(judgeOutput, spec.commentPath);
  const label = typeof value === 'string' && value.length > 0 && value.length <= 100;
  if (!(typeof value === 'number' && Number.isFinite(value)) && typeof value !== 'boolean' && !label)
    throw new EvaluatorFailure(`the judge's ${spec.scorePath} is not a number, a boolean or a label: ${textOf(value).slice(0, 100)}`);
  return {
    name: spec.name,
    value: value as ScoreValue,
    comment: typeof comment === 'string' ? comment.slice(0, 2_000) : `judged by ${spec.workflow}`,
  };
}

/** A built-in could not judge the run: recorded as the evaluation's failure, never as a score. */
export class EvaluatorFailure extends Error {}

/** What a definition's evaluators get wrong that their schema cannot see: a pattern RE2 refuses, a schema that does not compile. */
export function evaluatorIssues(specs: readonly EvaluatorSpec[] | undefined): FieldIssue[] {
  const issues: FieldIssue[] = [];
  (specs ?? []).forEach((spec, i) => {
    const problem =
      spec.type === 'regex'
        ? linearRegexProblem(spec.pattern, 're2')
        : spec.type === 'json_schema'
          ? jsonSchemaProblem(spec.schema)
          : undefined;
    if (problem) issues.push({ field: `evaluators[${i}].${spec.type === 'regex' ? 'pattern' : 'schema'}`, message: problem });
  });
  return issues;
}

function valueAt(output: unknown, path: string | undefined): unknown {
  if (path === undefined) return output;
  let value: unknown = output;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) {
      throw new EvaluatorFailure(`the output has no ${path}`);
    }
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** A string as it is, anything else as its JSON; bounded. */
function textOf(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return text.slice(0, MAX_JUDGED_TEXT);
}
