import { isReservedName, knowledgeBaseNameSchema, metadataFilterSchema, reservedNameMessage } from '@spindle/contracts';
import { z } from 'zod';
import { checkScript, modelScriptSchema } from './model-script.schema';
import { checkContextBudget, contextBudgetSchema, memorySchema } from './context-fields.schema';

/** The node types of a graph, and the graph shapes (edges, nested sub-graphs) they are wired with. */
/** A name that becomes a key somewhere: never a JavaScript prototype key. */
export const notReserved = (name: string, ctx: z.RefinementCtx) =>
  void (isReservedName(name) && ctx.addIssue({ code: 'custom', message: reservedNameMessage(name) }));
/**
 * Field names whose values are masked wherever they appear in the run's data (inputs, state,
 * outputs, tool arguments and results, answers) before anything is written down. A value so named
 * is not in the log, so a run never reads it back: credentials a workflow needs come from the
 * runner's environment, not from its input.
 */
export const secretFieldsSchema = z
  .array(z.string().min(1).max(128).superRefine(notReserved))
  .max(100)
  .refine((names) => new Set(names).size === names.length, 'secret field names must be distinct')
  .optional();

export const nodeId = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'must start with a letter or _ and use letters, digits, _ or - (max 64)')
  .superRefine(notReserved);
export const stateKey = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be an identifier (letters, digits, _)')
  .superRefine(notReserved);
const modelRef = z.string().regex(/^[a-z][a-z0-9-]*:.+$/, 'must be "provider:model", e.g. "offline:echo" or "openai:gpt-4o-mini"');
const base = {
  id: nodeId,
  label: z.string().max(200).optional(),
  /** Per-node timeout: the node's signal aborts at this point, and a node that ignores it is cut off shortly after. */
  timeout_ms: z.number().int().positive().max(86_400_000).optional(),
};
/**
 * `checkpoint: true` stores the node's result under sha256(runId | nodeId | iteration | inputHash);
 * a resumed or forked run with the same input reuses it instead of executing the node again.
 * `volatile_keys` are state keys left out of the input hash (timestamps, request ids).
 */
const cacheFields = {
  checkpoint: z.boolean().default(false),
  volatile_keys: z.array(z.string().min(1).max(64)).max(50).default([]),
};
/**
 * Files for the model, sent on the node's user message: a CEL expression over state giving a file
 * reference, a list of them, or a value holding them (e.g. `input.files`).
 */
export const attachmentsExpression = z.string().min(1).max(2_000).optional();
const toolName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/, 'must be a tool name (letters, digits, _ . -)');

export const setNodeSchema = z.strictObject({
  ...base,
  type: z.literal('set'),
  /** State keys to write; string values are templates, other JSON is written as is. */
  values: z.record(stateKey, z.unknown()).refine((v) => Object.keys(v).length > 0, 'must set at least one key'),
});

export const llmNodeSchema = z
  .strictObject({
    ...base,
    type: z.literal('llm'),
    model: modelRef,
    /** What `offline:script` answers (see model-script.schema.ts). */
    script: modelScriptSchema.optional(),
    prompt: z.string().min(1),
    system: z.string().optional(),
    attachments: attachmentsExpression,
    output_key: stateKey.default('output'),
    stream: z.boolean().default(false),
    /** The prompt's token budget (see context-fields.schema.ts). */
    context: contextBudgetSchema.optional(),
    ...cacheFields,
  })
  .superRefine(checkScript)
  .superRefine(checkContextBudget);

export const conditionNodeSchema = z.strictObject({
  ...base,
  type: z.literal('condition'),
  /** A CEL expression over state (e.g. `size(input.text) > 10`); picks the `true` or `false` edge. */
  expression: z.string().min(1),
});

export const functionNodeSchema = z.strictObject({
  ...base,
  type: z.literal('function'),
  function: z.string().min(1),
  /** Static arguments passed to the function; string values are templates. */
  args: z.record(z.string(), z.unknown()).optional(),
  ...cacheFields,
});

/**
 * An MCP server whose tools an agent is offered as `<name>__<tool>`: a stdio `command` (with `args`) the runner
 * spawns, or a streamable HTTP `url`. The name is short so the prefixed names stay within providers' 64 characters.
 */
export const mcpServerSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,31}$/, 'must start with a letter and use letters, digits, _ or - (max 32)'),
    command: z.string().min(1).max(1000).optional(),
    args: z.array(z.string().max(4000)).max(100).optional(),
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  })
  .refine((s) => (s.command === undefined) !== (s.url === undefined), {
    message: 'set exactly one of command (stdio) or url (streamable HTTP)',
    path: ['command'],
  })
  .refine((s) => s.args === undefined || s.command !== undefined, {
    message: 'args are only for a stdio server (command)',
    path: ['args'],
  });

/** How many messages an agent's `memory_key` keeps unless the node says otherwise. */
export const DEFAULT_MEMORY_MAX_MESSAGES = 200;

export const agentNodeSchema = z
  .strictObject({
    ...base,
    type: z.literal('agent'),
    model: modelRef,
    /** What `offline:script` answers (see model-script.schema.ts). */
    script: modelScriptSchema.optional(),
    instructions: z.string().optional(),
    /** The user message that starts the conversation (a template). */
    prompt: z.string().min(1).default('{{input}}'),
    attachments: attachmentsExpression,
    tools: z.array(toolName).max(64).default([]),
    /** Model calls the agent may make; running out fails the node with `max_iterations_exceeded`. */
    max_turns: z.number().int().min(1).max(100).default(8),
    stream: z.boolean().default(false),
    output_key: stateKey.default('output'),
    /** A JSON Schema the final answer must satisfy: it is parsed as JSON and validated; streaming is off. */
    structured: z.record(z.string(), z.unknown()).optional(),
    /** MCP servers connected (once per run) when the agent starts; their tools join `tools` as `<server>__<tool>`. */
    mcp_servers: z
      .array(mcpServerSchema)
      .max(16)
      .refine((list) => new Set(list.map((s) => s.name)).size === list.length, 'server names must be unique within the agent')
      .optional(),
    /**
     * Pause before a tool runs until a person approves that exact call: `true` for every tool, or
     * the names of the tools that need it. A rejection skips the tool and tells the model why.
     */
    approval: z.union([z.boolean(), z.array(toolName).min(1).max(64)]).default(false),
    /** How answers to its approval requests are taken (see the human node). */
    approval_mode: z.enum(['single', 'multiple']).default('single'),
    /**
     * How long an approval request waits; past it the call does not run and the node leaves on its
     * `timeout` handle, or fails with `input_timeout` when none is wired.
     */
    approval_timeout_ms: z
      .number()
      .int()
      .positive()
      .max(30 * 86_400_000)
      .optional(),
    /**
     * A state key holding the conversation so far: the agent starts from those messages and writes
     * them back with this turn's added, so a thread's next run goes on from where this one ended.
     */
    memory_key: stateKey.optional(),
    /** The most messages kept under `memory_key`: the oldest turns go first, a whole turn at a time. */
    memory_max_messages: z.number().int().min(2).max(1_000).default(DEFAULT_MEMORY_MAX_MESSAGES),
    /** Compaction of the conversation under `memory_key` by count or tokens, optionally summarized (context-fields.schema.ts). */
    memory: memorySchema.optional(),
    /** Each model call's token budget (see context-fields.schema.ts). */
    context: contextBudgetSchema.optional(),
    /**
     * The pattern participant this node is a turn of (set by the pattern compiler): its `timeout_ms`
     * is then the participant's wait limit, and overrunning it fails with `participant_timeout`.
     */
    participant: stateKey.optional(),
    /** The catalog agent (and version) the node was resolved from: shown on the node's span. */
    agent: z.strictObject({ name: stateKey, version: z.number().int().min(1) }).optional(),
    ...cacheFields,
  })
  .refine((n) => n.approval_timeout_ms === undefined || n.approval !== false, {
    message: 'approval_timeout_ms only applies to an agent with approval',
    path: ['approval_timeout_ms'],
  })
  .superRefine(checkScript)
  .superRefine(checkContextBudget);

export const toolNodeSchema = z.strictObject({
  ...base,
  type: z.literal('tool'),
  tool: toolName,
  /** Arguments; string values are templates. */
  args: z.record(z.string(), z.unknown()).default({}),
  output_key: stateKey.default('result'),
  ...cacheFields,
});

/**
 * Asks a person and waits (the runner holds nothing meanwhile). The answer goes to `output_key`:
 * `{ approved }` (boolean), `{ text }` (text), `{ data }` (json, validated against `schema`),
 * `{ approved, text? }` (plan_review: a rejection carries the revision). With `timeout_ms` the
 * request expires: the run follows the `timeout` edge, or fails with `input_timeout` without one.
 */
export const humanNodeSchema = z
  .strictObject({
    id: nodeId,
    label: z.string().max(200).optional(),
    type: z.literal('human'),
    prompt: z.string().min(1).max(10_000),
    form: z.enum(['boolean', 'text', 'json', 'plan_review']).default('boolean'),
    /** `json` forms: the JSON Schema an answer's `data` must match. */
    schema: z.record(z.string(), z.unknown()).optional(),
    /** `plan_review` forms: the plan shown for review (a template, or JSON whose strings are templates). */
    plan: z.unknown().optional(),
    /** `single`: the same answer again is accepted and changes nothing; `multiple`: the first answer closes it. */
    mode: z.enum(['single', 'multiple']).default('single'),
    /** How long the request stays open. */
    timeout_ms: z
      .number()
      .int()
      .positive()
      .max(30 * 86_400_000)
      .optional(),
    output_key: stateKey.optional(),
  })
  .refine((n) => n.form !== 'json' || n.schema !== undefined, { message: 'a json form needs a schema', path: ['schema'] });

export const routerNodeSchema = z
  .strictObject({
    ...base,
    type: z.literal('router'),
    /**
     * Expression routing: checked in order, the first `when` (CEL) that holds picks its handle.
     * Model routing (with `model`): the model picks one route by its `description`.
     */
    routes: z
      .array(
        z.strictObject({
          handle: z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/),
          when: z.string().min(1).optional(),
          description: z.string().min(1).optional(),
        }),
      )
      .min(1)
      .max(50),
    /** The handle to follow when no route holds; without one, that is a node failure. */
    default: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/)
      .optional(),
    /** Lets a model choose the route; `prompt` (a template, default `{{input}}`) is what it decides about. */
    model: modelRef.optional(),
    /** What `offline:script` answers (see model-script.schema.ts). */
    script: modelScriptSchema.optional(),
    prompt: z.string().min(1).optional(),
  })
  .superRefine(checkScript);

export const edgeSchema = z.strictObject({
  from: nodeId,
  to: nodeId,
  handle: z.string().min(1).optional(),
});

/** A graph inside a node (a loop's body, a fork's branch): the same rules as the top level. */
export const subgraphSchema = z.strictObject({
  get nodes(): z.ZodArray<typeof nodeSchema> {
    return z.array(nodeSchema).min(1).max(500);
  },
  edges: z.array(edgeSchema).max(2000).default([]),
  entry: nodeId.optional(),
});

export const loopNodeSchema = z.strictObject({
  ...base,
  type: z.literal('loop'),
  get body(): typeof subgraphSchema {
    return subgraphSchema;
  },
  /** CEL over state, checked after each iteration; the loop ends once it holds. */
  until: z.string().min(1).optional(),
  /** Iterations at most; the loop ends after the last one whether or not `until` held. */
  max_steps: z.number().int().min(1).max(1_000),
});

export const forkNodeSchema = z.strictObject({
  ...base,
  type: z.literal('fork'),
  /** Branches run concurrently, each on its own copy of the state at the fork. */
  get branches(): z.ZodRecord<z.ZodString, typeof subgraphSchema> {
    return z.record(
      z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'a branch id is an identifier')
        .superRefine(notReserved),
      subgraphSchema,
    );
  },
  /** The join writes `{ branchId: result }` here (default: the fork's id). */
  output_key: stateKey.optional(),
  /** Take this state key of each branch as its result, instead of everything the branch wrote. */
  result_key: stateKey.optional(),
  /** Keep the results of the branches that succeeded when one fails, instead of failing the fork. */
  continue_on_error: z.boolean().default(false),
});

/** Runs another catalog workflow as a child: its events nest under this node's span and path. */
export const subgraphNodeSchema = z.strictObject({
  ...base,
  type: z.literal('subgraph'),
  workflow: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'must be a workflow name')
    .superRefine(notReserved),
  /** A version of it; the latest at the time the run is queued when absent. */
  version: z.number().int().positive().optional(),
  /** The child's `input` (a template, or any JSON whose strings are templates). */
  input: z.unknown().default('{{input}}'),
  /** Where the child's `output` (or, without one, everything it wrote) goes; default the node id. */
  output_key: stateKey.optional(),
});

/** Appends one value (JSON whose strings are templates) to the list at `key`, starting it when absent: how a loop accumulates. */
export const appendNodeSchema = z.strictObject({
  ...base,
  type: z.literal('append'),
  key: stateKey,
  value: z.unknown(),
});

/**
 * Fails on purpose with `code` and `message` (a template): a drawable "this path is a failure" exit (e.g. a loop
 * out of iterations). Only codes without engine meaning, so a definition cannot fake a cancel, timeout or lost run.
 */
export const failNodeSchema = z.strictObject({
  ...base,
  type: z.literal('fail'),
  code: z.enum(['node_failed', 'max_iterations_exceeded']).default('node_failed'),
  message: z.string().min(1).max(2000),
});

/** Searches a knowledge base (or a plugin retriever) for `query`; the chunks go to `output_key`. */
export const retrieveNodeSchema = z.strictObject({
  ...base,
  type: z.literal('retrieve'),
  knowledgeBase: knowledgeBaseNameSchema,
  /** A template over state. */
  query: z.string().min(1).max(8_000),
  topK: z.number().int().min(1).max(50).default(5),
  minScore: z.number().min(0).max(1).optional(),
  /** Metadata a chunk must carry; string values are templates. */
  filter: metadataFilterSchema.optional(),
  output_key: stateKey.default('context'),
});

export const nodeSchema = z.discriminatedUnion('type', [
  setNodeSchema,
  llmNodeSchema,
  conditionNodeSchema,
  functionNodeSchema,
  agentNodeSchema,
  toolNodeSchema,
  routerNodeSchema,
  loopNodeSchema,
  forkNodeSchema,
  subgraphNodeSchema,
  appendNodeSchema,
  failNodeSchema,
  humanNodeSchema,
  retrieveNodeSchema,
]);
