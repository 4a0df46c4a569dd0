/**
 * The JSON a workflow definition is written in, as TypeScript types: the same fields, names and
 * nesting the gateway validates (libs/engine's definition schemas), written out here so the package
 * stands alone. Optional fields stay optional and nothing is filled in: what a builder is given is
 * what the definition says. Arrays are `readonly` so `as const` literals (and the builder's `const`
 * type parameters) fit.
 */

/** Any JSON value; strings in values the engine renders are `{{templates}}`. */
export type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };
/** A JSON Schema object (parameters, a structured answer, a json form). */
export type JsonSchema = { readonly [key: string]: unknown };
/** `provider:model`, e.g. `offline:echo`, `offline:script`, `openai:gpt-4o-mini`. */
export type ModelRef = `${string}:${string}`;

/** A turn of the offline model `offline:script`: tool calls or a final answer, optionally only `when` the text occurs. */
export interface ScriptTurn {
  readonly when?: string;
  readonly calls?: readonly { readonly tool: string; readonly args?: { readonly [key: string]: Json } }[];
  readonly reasoning?: string;
  readonly answer?: string | { readonly [key: string]: Json } | readonly Json[];
}

export interface ContextBudget {
  readonly max_input_tokens?: number;
  readonly reserve_output_tokens?: number;
  readonly strategy?: 'sentence' | 'hard';
  readonly priorities?: {
    readonly retrieval?: number;
    readonly tool_results?: number;
    readonly state_fields?: number;
    readonly history?: number;
  };
}

export interface MemoryCompaction {
  readonly max_messages?: number;
  readonly max_tokens?: number;
  readonly summarize?: { readonly model: ModelRef; readonly prompt?: string };
}

export interface McpServer {
  readonly name: string;
  readonly command?: string;
  readonly args?: readonly string[];
  readonly url?: string;
}

export interface Budget {
  readonly maxTotalTokens?: number;
  /** USD. */
  readonly maxTotalCost?: number;
  /** Milliseconds since the run started. */
  readonly maxDuration?: number;
}

/** Fields every node but `human` takes. */
interface NodeFields {
  readonly label?: string;
  readonly timeout_ms?: number;
}
interface CacheFields {
  readonly checkpoint?: boolean;
  readonly volatile_keys?: readonly string[];
}
/** A model's offline script: required with `offline:script`, refused with any other model (checked at save). */
interface ModelFields {
  readonly model: ModelRef;
  readonly script?: readonly ScriptTurn[];
}

export interface SetSpec extends NodeFields {
  readonly type: 'set';
  readonly values: { readonly [stateKey: string]: Json };
}
export interface LlmSpec extends NodeFields, CacheFields, ModelFields {
  readonly type: 'llm';
  readonly prompt: string;
  readonly system?: string;
  readonly attachments?: string;
  readonly output_key?: string;
  readonly stream?: boolean;
  readonly context?: ContextBudget;
}
export interface ConditionSpec extends NodeFields {
  readonly type: 'condition';
  /** CEL over state: picks the `true` or `false` edge. */
  readonly expression: string;
}
export interface FunctionSpec extends NodeFields, CacheFields {
  readonly type: 'function';
  readonly function: string;
  readonly args?: { readonly [key: string]: Json };
}
export interface AgentSpecNode extends NodeFields, CacheFields, ModelFields {
  readonly type: 'agent';
  readonly instructions?: string;
  readonly prompt?: string;
  readonly attachments?: string;
  readonly tools?: readonly string[];
  readonly max_turns?: number;
  readonly stream?: boolean;
  readonly output_key?: string;
  readonly structured?: JsonSchema;
  readonly mcp_servers?: readonly McpServer[];
  /** Tool calls that wait for a person: every one (`true`) or these tools; adds the `rejected` handle. */
  readonly approval?: boolean | readonly string[];
  readonly approval_mode?: 'single' | 'multiple';
  /** With approval: how long a request waits; adds the `timeout` handle. */
  readonly approval_timeout_ms?: number;
  readonly memory_key?: string;
  readonly memory_max_messages?: number;
  readonly memory?: MemoryCompaction;
  readonly context?: ContextBudget;
}
export interface ToolSpec extends NodeFields, CacheFields {
  readonly type: 'tool';
  readonly tool: string;
  readonly args?: { readonly [key: string]: Json };
  readonly output_key?: string;
}
export interface RetrieveSpec extends NodeFields {
  readonly type: 'retrieve';
  readonly knowledgeBase: string;
  readonly query: string;
  readonly topK?: number;
  readonly minScore?: number;
  readonly filter?: { readonly [key: string]: string | number | boolean };
  readonly output_key?: string;
}
export interface RouterRoute {
  readonly handle: string;
  readonly when?: string;
  readonly description?: string;
}
export interface RouterSpec extends NodeFields {
  readonly type: 'router';
  /** Each route's `handle` is an edge handle of this node. */
  readonly routes: readonly RouterRoute[];
  readonly default?: string;
  readonly model?: ModelRef;
  readonly script?: readonly ScriptTurn[];
  readonly prompt?: string;
}
/** A person's answer: `{ approved }`, `{ text }`, `{ data }` or a plan review; `timeout_ms` adds the `timeout` handle. */
export interface HumanSpec {
  readonly type: 'human';
  readonly label?: string;
  readonly prompt: string;
  readonly form?: 'boolean' | 'text' | 'json' | 'plan_review';
  readonly schema?: JsonSchema;
  readonly plan?: Json;
  readonly mode?: 'single' | 'multiple';
  readonly timeout_ms?: number;
  readonly output_key?: string;
}
export interface LoopSpec extends NodeFields {
  readonly type: 'loop';
  readonly body: SubgraphSource;
  readonly until?: string;
  readonly max_steps: number;
}
export interface ForkSpec extends NodeFields {
  readonly type: 'fork';
  readonly branches: { readonly [branchId: string]: SubgraphSource };
  readonly output_key?: string;
  readonly result_key?: string;
  readonly continue_on_error?: boolean;
}
/** Runs another catalog workflow as a child run. */
export interface SubgraphSpec extends NodeFields {
  readonly type: 'subgraph';
  readonly workflow: string;
  readonly version?: number;
  readonly input?: Json;
  readonly output_key?: string;
}
export interface AppendSpec extends NodeFields {
  readonly type: 'append';
  readonly key: string;
  readonly value: Json;
}
/** Ends the run failed on purpose: nothing follows it. */
export interface FailSpec extends NodeFields {
  readonly type: 'fail';
  readonly code?: 'node_failed' | 'max_iterations_exceeded';
  readonly message: string;
}

export type NodeSpec =
  | SetSpec
  | LlmSpec
  | ConditionSpec
  | FunctionSpec
  | AgentSpecNode
  | ToolSpec
  | RetrieveSpec
  | RouterSpec
  | HumanSpec
  | LoopSpec
  | ForkSpec
  | SubgraphSpec
  | AppendSpec
  | FailSpec;
export type NodeType = NodeSpec['type'];
export type SpecOf<T extends NodeType> = Extract<NodeSpec, { type: T }>;

/** A node as the definition holds it: its spec with its id, nested graphs as JSON. */
export type NodeJson = { readonly id: string } & { readonly [key: string]: unknown; readonly type: NodeType };

export interface EdgeJson {
  readonly from: string;
  readonly to: string;
  readonly handle?: string;
}

/** Nodes and edges: the whole graph, a loop's body, a fork's branch. */
export interface SubgraphJson {
  readonly nodes: readonly NodeJson[];
  readonly edges?: readonly EdgeJson[];
  readonly entry?: string;
}

/** A nested graph: its JSON, or a builder (`graph().node(…)`) that is turned into it. */
export type SubgraphSource = SubgraphJson | { build(): SubgraphJson };

/** Fields every definition takes, graph or pattern. */
export interface WorkflowOptionsJson {
  readonly description?: string;
  readonly secrets?: readonly string[];
  readonly budget?: Budget;
  readonly runTimeoutMs?: number;
  readonly parameters?: JsonSchema;
}

export interface GraphDefinitionJson extends WorkflowOptionsJson, SubgraphJson {
  readonly kind: 'graph';
}

/** An agent of a pattern, written out. Its name is its node id (and in `sequential`, its answer's state key). */
export interface PatternAgent {
  readonly name: string;
  readonly model: ModelRef;
  readonly script?: readonly ScriptTurn[];
  readonly instructions?: string;
  readonly description?: string;
  readonly tools?: readonly string[];
  readonly max_turns?: number;
  readonly stream?: boolean;
  readonly attachments?: string;
  readonly approval?: boolean | readonly string[];
  readonly checkpoint?: boolean;
  readonly memory_key?: string;
  readonly memory?: MemoryCompaction;
  readonly context?: ContextBudget;
  /** Its wait limit for each turn: past it the run fails `participant_timeout` (overrides the pattern's `agentTimeoutMs`). */
  readonly timeout_ms?: number;
}
/**
 * An agent of the agent catalog, by name: its latest version when the run starts, the version
 * pinned (`version: 3`), or the one a declared integer run parameter names (`{ parameter }`).
 */
export interface AgentRef {
  readonly ref: string;
  readonly version?: number | { readonly parameter: string };
}
export type PatternParticipant = PatternAgent | AgentRef;

export type PatternKind = 'sequential' | 'concurrent' | 'handoff' | 'group_chat' | 'magentic';

export interface PatternDefinitionJson extends WorkflowOptionsJson {
  readonly kind: PatternKind;
  readonly agents: readonly PatternParticipant[];
  readonly aggregator?: PatternParticipant;
  readonly manager?: PatternParticipant;
  readonly start?: string;
  readonly maxIterations?: number;
  /** The wait limit of every participant without its own `timeout_ms`. */
  readonly agentTimeoutMs?: number;
}

export type WorkflowDefinitionJson = GraphDefinitionJson | PatternDefinitionJson;
