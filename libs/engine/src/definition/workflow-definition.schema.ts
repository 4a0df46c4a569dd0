import { evaluatorsSchema } from '@spindle/contracts';
import { z } from 'zod';
import {
  agentNodeSchema,
  appendNodeSchema,
  nodeId,
  conditionNodeSchema,
  edgeSchema,
  failNodeSchema,
  forkNodeSchema,
  functionNodeSchema,
  llmNodeSchema,
  loopNodeSchema,
  nodeSchema,
  routerNodeSchema,
  setNodeSchema,
  subgraphNodeSchema,
  subgraphSchema,
  toolNodeSchema,
  humanNodeSchema,
  retrieveNodeSchema,
  secretFieldsSchema,
} from './node.schemas';
import {
  concurrentPatternSchema,
  groupChatPatternSchema,
  handoffPatternSchema,
  magenticPatternSchema,
  sequentialPatternSchema,
} from '../patterns/pattern-definition.schema';

/**
 * Workflow definitions: a graph, or a multi-agent pattern compiled to one. The JSON users PUT
 * into the catalog; validated at save (`validateDefinition`) and again by the runner.
 */

/** Limits shared by everything a run calls; a node that would start past one fails the run with `run_budget_exceeded`. */
export const budgetSchema = z.strictObject({
  maxTotalTokens: z.number().int().positive().optional(),
  /** USD, from the model price table. */
  maxTotalCost: z.number().positive().optional(),
  /** Milliseconds since the run started. */
  maxDuration: z.number().int().positive().optional(),
});

export const graphDefinitionSchema = z.strictObject({
  kind: z.literal('graph'),
  description: z.string().max(2000).optional(),
  secrets: secretFieldsSchema,
  budget: budgetSchema.optional(),
  /** A JSON Schema the run's `parameters` must satisfy; a run that does not is refused before it is queued. */
  parameters: z.record(z.string(), z.unknown()).optional(),
  /** The run's timeout; the runner's default when absent, and never beyond the runner's ceiling. */
  runTimeoutMs: z.number().int().positive().optional(),
  /** Judges of every completed run (or a sample), after it ended: each gives a score of the run. */
  evaluators: evaluatorsSchema.optional(),
  nodes: z.array(nodeSchema).min(1).max(500),
  edges: z.array(edgeSchema).max(2000).default([]),
  entry: nodeId.optional(),
});

export const workflowDefinitionSchema = z.discriminatedUnion('kind', [
  graphDefinitionSchema,
  sequentialPatternSchema,
  concurrentPatternSchema,
  handoffPatternSchema,
  groupChatPatternSchema,
  magenticPatternSchema,
]);

export type SetNode = z.infer<typeof setNodeSchema>;
export type LlmNode = z.infer<typeof llmNodeSchema>;
export type ConditionNode = z.infer<typeof conditionNodeSchema>;
export type FunctionNode = z.infer<typeof functionNodeSchema>;
export type AgentNode = z.infer<typeof agentNodeSchema>;
export type ToolNode = z.infer<typeof toolNodeSchema>;
export type RouterNode = z.infer<typeof routerNodeSchema>;
export type LoopNode = z.infer<typeof loopNodeSchema>;
export type ForkNode = z.infer<typeof forkNodeSchema>;
export type SubgraphNode = z.infer<typeof subgraphNodeSchema>;
export type AppendNode = z.infer<typeof appendNodeSchema>;
export type FailNode = z.infer<typeof failNodeSchema>;
export type HumanNode = z.infer<typeof humanNodeSchema>;
export type RetrieveNode = z.infer<typeof retrieveNodeSchema>;
export type Subgraph = z.infer<typeof subgraphSchema>;
/** Anything that holds nodes and edges: the definition itself, a loop body, a fork branch. */
export type NodeContainer = Pick<Subgraph, 'nodes' | 'edges' | 'entry'>;
export type WorkflowNode = z.infer<typeof nodeSchema>;
export type NodeType = WorkflowNode['type'];
export type NodeOf<T extends NodeType> = Extract<WorkflowNode, { type: T }>;
export type Edge = z.infer<typeof edgeSchema>;
export type Budget = z.infer<typeof budgetSchema>;
export type GraphDefinition = z.infer<typeof graphDefinitionSchema>;
export type WorkflowDefinition = z.infer<typeof workflowDefinitionSchema>;
/** What users write (defaults not yet applied). */
export type WorkflowDefinitionInput = z.input<typeof workflowDefinitionSchema>;

export const nodeTypes = [
  'set',
  'llm',
  'condition',
  'function',
  'agent',
  'tool',
  'router',
  'loop',
  'fork',
  'subgraph',
  'append',
  'fail',
  'human',
  'retrieve',
] as const satisfies readonly NodeType[];

/** Edge handles a node can emit; an edge with any other handle is a definition error. */
export function handlesOf(node: WorkflowNode): readonly string[] {
  switch (node.type) {
    case 'condition':
      return ['true', 'false'];
    case 'router':
      return [...new Set([...node.routes.map((r) => r.handle), ...(node.default ? [node.default] : [])])];
    case 'fail':
      // The run ends here: nothing follows a fail node.
      return [];
    case 'human':
      return node.timeout_ms !== undefined ? ['default', 'rejected', 'timeout'] : ['default', 'rejected'];
    case 'agent':
      if (node.approval === false) return ['default'];
      return node.approval_timeout_ms !== undefined ? ['default', 'rejected', 'timeout'] : ['default', 'rejected'];
    default:
      return ['default'];
  }
}
