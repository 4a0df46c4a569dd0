import { z } from 'zod';
import { scoreNameSchema } from './scores';
import { WORKFLOW_NAME_PATTERN } from './http-api/request.schemas';

/**
 * Evaluators a workflow definition carries (`evaluators: [...]`): each judges every completed run
 * of the definition (or the `sampleRate` share of them) after the run has ended, and its result
 * is a score of the run given by the evaluator. Built-ins need no model. The definition a run was
 * queued with is the one whose evaluators judge it, so an evaluator's version is its workflow's.
 */

/** A dot path into the run's output (`answer`, `items.0.id`); absent: the whole output. */
const dotPathSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}(\.[A-Za-z0-9_-]{1,64}){0,15}$/, 'a dot path of keys and indexes, e.g. `answer` or `items.0.id`');
const outputPathSchema = dotPathSchema.optional();

const common = {
  /** The score's name; the evaluator's type by default. */
  name: scoreNameSchema.optional(),
  /** The share of completed runs judged, decided by the run id (the same run is always in or out). Default 1. */
  sampleRate: z.number().min(0).max(1).default(1),
};

const builtinEvaluatorSpecs = [
  // Without `expected`: the item's expected output in an experiment, else null.
  z.strictObject({ ...common, type: z.literal('exact_match'), path: outputPathSchema, expected: z.unknown().optional() }),
  z.strictObject({ ...common, type: z.literal('json_schema'), path: outputPathSchema, schema: z.record(z.string(), z.unknown()) }),
  z.strictObject({
    ...common,
    type: z.literal('contains'),
    path: outputPathSchema,
    text: z.string().min(1).max(1000),
    caseSensitive: z.boolean().default(false),
  }),
  z.strictObject({ ...common, type: z.literal('regex'), path: outputPathSchema, pattern: z.string().min(1).max(512) }),
  z.strictObject({
    ...common,
    type: z.literal('numeric_tolerance'),
    path: outputPathSchema,
    expected: z.number().finite(),
    tolerance: z.number().finite().nonnegative(),
  }),
  z.strictObject({ ...common, type: z.literal('latency_below'), maxMs: z.number().positive() }),
  z.strictObject({ ...common, type: z.literal('cost_below'), maxUsd: z.number().nonnegative() }),
] as const;

/** The evaluators that need no model and judge at once, in the control plane (`judge()`). */
export const builtinEvaluatorSpecSchema = z.discriminatedUnion('type', [...builtinEvaluatorSpecs]);
export type BuiltinEvaluatorSpec = z.infer<typeof builtinEvaluatorSpecSchema>;

/**
 * A workflow that judges (an LLM-as-judge with a rubric, or any graph): run on the runners like
 * any run, with `{ runId, input, output, wallMs, costUsd }` of the judged run as its input; its
 * output's `scorePath` is the score, `commentPath` the comment. Its own run's cost is the
 * evaluation's. A run a judge makes is never judged itself.
 */
export const workflowEvaluatorSpecSchema = z.strictObject({
  name: scoreNameSchema,
  sampleRate: common.sampleRate,
  type: z.literal('workflow'),
  workflow: z.string().regex(WORKFLOW_NAME_PATTERN, 'a workflow name'),
  version: z.number().int().positive().optional().describe('Default: the judge workflow’s latest version when it judges.'),
  scorePath: dotPathSchema.default('score'),
  commentPath: dotPathSchema.optional(),
});
export type WorkflowEvaluatorSpec = z.infer<typeof workflowEvaluatorSpecSchema>;

export const evaluatorSpecSchema = z.discriminatedUnion('type', [...builtinEvaluatorSpecs, workflowEvaluatorSpecSchema]);
export type EvaluatorSpec = z.infer<typeof evaluatorSpecSchema>;
export type EvaluatorType = EvaluatorSpec['type'];

export const MAX_EVALUATORS = 20;

/** A list of evaluators: at most 20, no two giving the score of one name. */
function evaluatorList<S extends z.ZodType<Pick<EvaluatorSpec, 'name' | 'type'>>>(spec: S) {
  return z
    .array(spec)
    .max(MAX_EVALUATORS)
    .superRefine((specs, ctx) => {
      const seen = new Set<string>();
      specs.forEach((s, i) => {
        const name = evaluatorScoreName(s);
        if (seen.has(name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `two evaluators give the score "${name}"` });
        seen.add(name);
      });
    });
}

export const evaluatorsSchema = evaluatorList(evaluatorSpecSchema);
/** An experiment's own evaluators judge as its items end: built-ins (a definition's workflow evaluators judge its runs anyway). */
export const builtinEvaluatorsSchema = evaluatorList(builtinEvaluatorSpecSchema);

/** The name of the score an evaluator gives. */
export const evaluatorScoreName = (spec: Pick<EvaluatorSpec, 'name' | 'type'>): string => spec.name ?? spec.type;

/**
 * Whether a run is in an evaluator's sample: a hash of the run id and the score name against the
 * rate, so every fold of the log (and every replica) decides the same, and two evaluators at
 * 10 % do not always pick the same runs.
 */
export function inEvaluatorSample(runId: string, scoreName: string, rate: number): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  // FNV-1a over the text: small, stable and spread enough for sampling (not for security).
  let hash = 0x811c9dc5;
  for (const ch of `${runId}\n${scoreName}`) {
    hash ^= ch.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash / 0x1_0000_0000 < rate;
}

/** `GET /v1/runs/{id}/evaluations`: what each of the run's evaluators made of it. */
export const runEvaluationSchema = z.object({
  name: z.string().describe('The score it gives.'),
  type: z.string(),
  status: z
    .enum(['pending', 'done', 'failed'])
    .describe('`done`: the score is among the run’s; `failed`: it could not judge (see `error`).'),
  attempts: z.number().int().nonnegative(),
  error: z.string().nullable(),
  scoreId: z.string().nullable(),
  judgeRunId: z.string().nullable().describe('A workflow evaluator’s own run (null for a built-in).'),
  costUsd: z.number().nullable().describe('What the judge run cost (null for a built-in, or until it ended).'),
});
export type RunEvaluation = z.infer<typeof runEvaluationSchema>;
