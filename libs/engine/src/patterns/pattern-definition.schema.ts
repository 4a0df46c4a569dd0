import { z } from 'zod';

/**
 * Multi-agent patterns: a short form for common agent topologies, compiled to the same graph
 * the interpreter runs (`toGraph`), so their runs are observed node by node like any other.
 */
const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be an identifier (letters, digits, _)');

export const agentSpecSchema = z.strictObject({
  /** Becomes the agent's node id and the state key its answer is written to. */
  name: identifier,
  model: z.string().regex(/^[a-z][a-z0-9-]*:.+$/, 'must be "provider:model"'),
  instructions: z.string().optional(),
  tools: z.array(z.string()).max(64).default([]),
  max_turns: z.number().int().min(1).max(100).default(8),
  stream: z.boolean().default(false),
});

/** Agents with distinct names: a name is a node id and a state key. */
const agentList = (min: number) =>
  z.array(agentSpecSchema).min(min).max(50).superRefine((agents, ctx) => {
    const seen = new Set<string>();
    agents.forEach((agent, i) => {
      if (seen.has(agent.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate agent name "${agent.name}"` });
      seen.add(agent.name);
    });
  });

const shared = {
  description: z.string().max(2000).optional(),
  budget: z.strictObject({ maxTotalTokens: z.number().int().positive().optional(), maxTotalCost: z.number().positive().optional(), maxDuration: z.number().int().positive().optional() }).optional(),
  runTimeoutMs: z.number().int().positive().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
};

/** Each agent works on the previous one's answer; the last answer is the run's `output`. */
export const sequentialPatternSchema = z.strictObject({ ...shared, kind: z.literal('sequential'), agents: agentList(1) });

/** Every agent answers the input at once; an optional aggregator combines their answers into `output`. */
export const concurrentPatternSchema = z.strictObject({
  ...shared,
  kind: z.literal('concurrent'),
  agents: agentList(2),
  aggregator: agentSpecSchema.optional(),
});

export type AgentSpec = z.infer<typeof agentSpecSchema>;
export type SequentialPattern = z.infer<typeof sequentialPatternSchema>;
export type ConcurrentPattern = z.infer<typeof concurrentPatternSchema>;
export type PatternDefinition = SequentialPattern | ConcurrentPattern;
