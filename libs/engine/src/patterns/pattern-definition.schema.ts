import { evaluatorsSchema } from '@spindle/contracts';
import { z } from 'zod';
import { checkScript, modelScriptSchema } from '../definition/model-script.schema';
import { attachmentsExpression, notReserved, secretFieldsSchema } from '../definition/node.schemas';
import { checkContextBudget, contextBudgetSchema, memorySchema } from '../definition/context-fields.schema';

/**
 * Multi-agent patterns: a short form for common agent topologies, compiled to the same graph
 * the interpreter runs (`toGraph`), so their runs are observed node by node like any other.
 */
/** A participant's wait limit (ms): as long as a graph node's `timeout_ms` may be. */
const participantTimeout = z.number().int().positive().max(86_400_000);

const identifier = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be an identifier (letters, digits, _)')
  .superRefine(notReserved);

const agentSpecFields = z.strictObject({
  /** Becomes the agent's node id (and, in `sequential`, the state key its answer is written to). */
  name: identifier,
  model: z.string().regex(/^[a-z][a-z0-9-]*:.+$/, 'must be "provider:model"'),
  /** What `offline:script` answers; a manager's script serves all its prompts (see model-script.schema.ts). */
  script: modelScriptSchema.optional(),
  instructions: z.string().optional(),
  /** What the agent is for: shown to a manager choosing a speaker and to agents that may hand off to it. */
  description: z.string().max(500).optional(),
  tools: z.array(z.string()).max(64).default([]),
  max_turns: z.number().int().min(1).max(100).default(8),
  stream: z.boolean().default(false),
  /** Files for the agent's model, e.g. `input.files` (see the agent node). */
  attachments: attachmentsExpression,
  /** Tool calls that wait for a person's approval (see the agent node). */
  approval: z.union([z.boolean(), z.array(z.string()).min(1).max(64)]).default(false),
  /** Store each answer so a resumed or forked run with the same input reuses it. */
  checkpoint: z.boolean().default(false),
  /** The state key the agent's conversation is remembered under, and how it is compacted (see the agent node). */
  memory_key: identifier.optional(),
  memory: memorySchema.optional(),
  /** Each model call's token budget (see the agent node). */
  context: contextBudgetSchema.optional(),
  /**
   * The participant's wait limit for each of its turns: its signal aborts at the limit (a model
   * call or tool that honours it stops), and a turn still running shortly after is cut off. Either
   * way the run fails with `participant_timeout` naming it. Overrides the pattern's `agentTimeoutMs`.
   */
  timeout_ms: participantTimeout.optional(),
  /**
   * The catalog agent this spec was resolved from (`{ "ref": … }`), written by the resolution, not
   * by hand: the trace shows the version a step ran. Not part of the graph's structure.
   */
  agent: z.strictObject({ name: identifier, version: z.number().int().min(1) }).optional(),
});

export const agentSpecSchema = agentSpecFields.superRefine(checkScript).superRefine(checkContextBudget);
/** A catalog agent as `PUT /v1/agents/{name}` takes it: the name is in the path, the version is the catalog's. */
export const agentBodySchema = agentSpecFields.omit({ name: true, agent: true }).superRefine(checkScript).superRefine(checkContextBudget);

/** Agents with distinct names: a name is a node id and a state key. */
const agentList = (min: number) =>
  z
    .array(agentSpecSchema)
    .min(min)
    .max(50)
    .superRefine((agents, ctx) => {
      const seen = new Set<string>();
      agents.forEach((agent, i) => {
        if (seen.has(agent.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate agent name "${agent.name}"` });
        seen.add(agent.name);
      });
    });

const shared = {
  description: z.string().max(2000).optional(),
  secrets: secretFieldsSchema,
  budget: z
    .strictObject({
      maxTotalTokens: z.number().int().positive().optional(),
      maxTotalCost: z.number().positive().optional(),
      maxDuration: z.number().int().positive().optional(),
    })
    .optional(),
  runTimeoutMs: z.number().int().positive().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  evaluators: evaluatorsSchema.optional(),
  /** The wait limit of every participant (agents, manager, aggregator) without its own `timeout_ms`. */
  agentTimeoutMs: participantTimeout.optional(),
};

/** Turns (loop iterations) a turn-taking pattern may take; running out fails the run with `max_iterations_exceeded`. */
const maxIterations = z.number().int().min(1).max(1_000).default(10);

/** Each agent works on the previous one's answer; the last answer is the run's `output`. */
export const sequentialPatternSchema = z.strictObject({ ...shared, kind: z.literal('sequential'), agents: agentList(1) });

/** Every agent answers the input at once; an optional aggregator combines their answers into `output`. */
export const concurrentPatternSchema = z.strictObject({
  ...shared,
  kind: z.literal('concurrent'),
  agents: agentList(2),
  aggregator: agentSpecSchema.optional(),
});

/** `handoff_to_` + the name must fit the 64-character tool-name limit providers enforce. */
const HANDOFF_NAME_MAX = 64 - 'handoff_to_'.length;

/**
 * One agent holds the conversation at a time; it passes control by calling an engine-provided
 * `handoff_to_<name>` tool, or answers, which ends the run with its answer as `output`.
 */
export const handoffPatternSchema = z
  .strictObject({
    ...shared,
    kind: z.literal('handoff'),
    agents: agentList(2),
    /** The agent that takes the first turn; the first one listed when absent. */
    start: identifier.optional(),
    maxIterations,
  })
  .superRefine((def, ctx) => {
    if (def.start !== undefined && !def.agents.some((a) => a.name === def.start)) {
      ctx.addIssue({ code: 'custom', path: ['start'], message: `start names no agent: "${def.start}"` });
    }
    def.agents.forEach((agent, i) => {
      if (agent.name.length > HANDOFF_NAME_MAX)
        ctx.addIssue({
          code: 'custom',
          path: ['agents', i, 'name'],
          message: `at most ${HANDOFF_NAME_MAX} characters, so its handoff tool name fits 64`,
        });
    });
  });

/** A manager's name is a node id next to the agents', and `FINISH` is the manager's word for "done". */
const checkManager = (def: { agents: Array<{ name: string }>; manager: { name: string } }, ctx: z.RefinementCtx) => {
  if (def.agents.some((a) => a.name === def.manager.name))
    ctx.addIssue({ code: 'custom', path: ['manager', 'name'], message: `the manager needs a name no agent has ("${def.manager.name}")` });
  def.agents.forEach((agent, i) => {
    if (agent.name === 'FINISH')
      ctx.addIssue({ code: 'custom', path: ['agents', i, 'name'], message: '"FINISH" is reserved for the manager' });
  });
};

/** Each round the manager picks the next speaker (or `FINISH`); the speaker answers the transcript so far. */
export const groupChatPatternSchema = z
  .strictObject({ ...shared, kind: z.literal('group_chat'), agents: agentList(1), manager: agentSpecSchema, maxIterations })
  .superRefine(checkManager);

/**
 * The manager writes a plan (facts + steps), then each round updates a progress ledger that names
 * the next agent and its instruction; a round without progress makes it replan.
 */
export const magenticPatternSchema = z
  .strictObject({ ...shared, kind: z.literal('magentic'), agents: agentList(1), manager: agentSpecSchema, maxIterations })
  .superRefine(checkManager);

export type AgentSpec = z.infer<typeof agentSpecSchema>;
export type SequentialPattern = z.infer<typeof sequentialPatternSchema>;
export type ConcurrentPattern = z.infer<typeof concurrentPatternSchema>;
export type HandoffPattern = z.infer<typeof handoffPatternSchema>;
export type GroupChatPattern = z.infer<typeof groupChatPatternSchema>;
export type MagenticPattern = z.infer<typeof magenticPatternSchema>;
export type PatternDefinition = SequentialPattern | ConcurrentPattern | HandoffPattern | GroupChatPattern | MagenticPattern;
