import { z } from 'zod';
import { actorSchema } from './identity';
import { replayDivergenceModeSchema } from './run-events';
import { runIdSchema } from './run-id';

/**
 * Replays: recorded runs re-driven through another version of their workflow. Each replay is a
 * run of its own (its `run.queued` names `replayOf`) whose model and tool calls are answered from
 * the recording where the call is the same; its report says where it first went another way.
 * The recorded runs are only read.
 */

export const REPLAY_ID_PATTERN = /^rpl_[0-9A-HJKMNP-TV-Z]{26}$/;
export const MAX_REPLAY_RUNS = 100;

/** `POST /v1/workflows/{name}/replays`. */
export const newReplayBodySchema = z.strictObject({
  runs: z
    .array(runIdSchema)
    .min(1)
    .max(MAX_REPLAY_RUNS)
    .describe('The recorded runs to replay (1 to 100, each an ended run of this workflow in the caller’s tenant).'),
  version: z.number().int().positive().optional().describe('The version to replay them through. Default: the latest.'),
  onDivergence: replayDivergenceModeSchema
    .default('stop')
    .describe(
      'At a model or tool call the recording does not have: `stop` the replay there (default), or `call` the model or tool for real.',
    ),
});
export type NewReplayBody = z.infer<typeof newReplayBodySchema>;

export const DIVERGENCE_KINDS = ['model_call', 'tool_call', 'branch', 'node_output', 'outcome'] as const;
export const divergenceKindSchema = z.enum(DIVERGENCE_KINDS);
export type DivergenceKind = z.infer<typeof divergenceKindSchema>;

/** Where a replay first went another way than its recording. */
export const replayDivergenceSchema = z.object({
  kind: divergenceKindSchema.describe(
    '`model_call`: a prompt, system, model or tool list the recording never sent; `tool_call`: a tool or arguments it never called; ' +
      '`branch`: a node one ran and the other did not; `node_output`: a node answered otherwise with the same calls; ' +
      '`outcome`: the run ended another way.',
  ),
  nodeId: z.string().nullable(),
  path: z.string().nullable(),
  seq: z.number().int().positive().describe('The event of the replay’s log where it diverged.'),
  sourceSeq: z.number().int().positive().nullable().describe('The recorded event it is set against, where there is one.'),
  detail: z.string().describe('What differs, in a sentence (the first differing message, argument or field).'),
});
export type ReplayDivergence = z.infer<typeof replayDivergenceSchema>;

export const REPLAY_OUTCOMES = ['pending', 'same', 'diverged', 'stopped', 'failed'] as const;
export const replayOutcomeSchema = z.enum(REPLAY_OUTCOMES);
export type ReplayOutcome = z.infer<typeof replayOutcomeSchema>;

/** One recorded run's replay, read from the two logs. */
export const replayRunReportSchema = z.object({
  sourceRunId: runIdSchema,
  runId: runIdSchema,
  outcome: replayOutcomeSchema.describe(
    '`pending`: not ended yet; `same`: ended as recorded; `diverged`: went another way (and, with `call`, on to its end); ' +
      '`stopped`: stopped at its divergence; `failed`: the replay could not run (the error says why).',
  ),
  divergence: replayDivergenceSchema.nullable(),
  calls: z.object({
    modelServed: z.number().int().nonnegative(),
    modelMade: z.number().int().nonnegative(),
    toolServed: z.number().int().nonnegative(),
    toolMade: z.number().int().nonnegative(),
  }),
  costUsd: z.object({
    recorded: z.number().nonnegative().describe('What the recorded run cost.'),
    replay: z.number().nonnegative().describe('What the replay’s calls cost, served or made: what the new version would have cost so far.'),
    spent: z.number().nonnegative().describe('What the replay spent on calls it made for real.'),
  }),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type ReplayRunReport = z.infer<typeof replayRunReportSchema>;

export const replaySchema = z.object({
  replayId: z.string(),
  workflow: z.object({ name: z.string(), version: z.number().int().positive() }),
  onDivergence: replayDivergenceModeSchema,
  createdAt: z.string(),
  createdBy: actorSchema,
  summary: z.object({
    runs: z.number().int().nonnegative(),
    byOutcome: z.record(z.string(), z.number().int().nonnegative()),
    costUsd: z.object({ recorded: z.number().nonnegative(), replay: z.number().nonnegative(), spent: z.number().nonnegative() }),
  }),
  runs: z.array(replayRunReportSchema),
});
export type Replay = z.infer<typeof replaySchema>;

/** A replay in the tenant's list: without its runs' reports (read one replay for those). */
export const replayListItemSchema = replaySchema
  .pick({ replayId: true, workflow: true, onDivergence: true, createdAt: true, createdBy: true })
  .extend({ runs: z.number().int().nonnegative() });
export type ReplayListItem = z.infer<typeof replayListItemSchema>;
