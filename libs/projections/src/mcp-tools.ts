import { isJsonObject, type RunEvent, type RunEventOf, type RunEventType } from '@spindle/contracts';
import { formFieldsOf } from './form-fields';
import { openRequestsOf, runPhase } from './run-requests';

/**
 * Spindle's workflows as MCP tools, and a run's log as what an MCP `tools/call` answers: pure
 * maps, so the gateway's MCP endpoint only wires them to the catalog, the starter and the log.
 */

/** `_meta` key naming the run a tool call started (MCP reserves unprefixed keys). */
export const MCP_RUN_META_KEY = 'io.spindle/runId';

/** An MCP `Tool` (the fields Spindle fills). */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  /** Every workflow may run as a task: a client that asks gets the task at once and polls it. */
  execution: { taskSupport: 'optional' };
}

/** An MCP task (the 2025-11-25 tasks extension): a tool call run as a task is its Spindle run, `taskId` the run id. */
export interface McpTask {
  taskId: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** Never expires on its own: the run's log is kept (the tenant's retention, not the task, decides). */
  ttl: null;
  pollInterval: number;
}

/** How often a client is asked to poll a task (ms): a run's steps take about that long to matter to a person watching. */
export const MCP_TASK_POLL_MS = 1_000;

/** An MCP `CallToolResult` (the fields Spindle fills). */
export interface McpToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta: Record<string, unknown>;
}

/** A workflow the catalog holds: its name and its latest definition as stored. */
export interface CatalogWorkflow {
  name: string;
  version: number;
  definition: unknown;
}

const INPUT_ONLY_SCHEMA = {
  type: 'object',
  properties: { input: { description: "The run's input: any JSON value." } },
  additionalProperties: false,
} as const;

/** A workflow as a tool: its `parameters` schema is the tool's input; without one the tool takes `{ input }`. */
export function mcpToolOf(workflow: CatalogWorkflow): McpTool {
  const { description, parameters } = definitionFields(workflow.definition);
  return {
    name: workflow.name,
    description: description ?? `Runs the Spindle workflow "${workflow.name}" (version ${workflow.version}) and answers its output.`,
    inputSchema: parameters ?? { ...INPUT_ONLY_SCHEMA },
    execution: { taskSupport: 'optional' },
  };
}

const taskEnd: {
  readonly [T in 'run.completed' | 'run.failed' | 'run.canceled']: (e: RunEventOf<T>) => Pick<McpTask, 'status' | 'statusMessage'>;
} = {
  'run.completed': () => ({ status: 'completed' }),
  'run.failed': (e) => ({ status: 'failed', statusMessage: `the run failed (${e.data.error.code}): ${e.data.error.message}` }),
  'run.canceled': (e) => ({ status: 'cancelled', statusMessage: `the run was canceled${e.data.reason ? `: ${e.data.reason}` : ''}` }),
};

/** The task a run's log says: working, waiting for a person (`input_required`), or how it ended. `events` is the whole log. */
export function mcpTaskOf(events: readonly RunEvent[]): McpTask {
  const first = events[0]!;
  const base = { taskId: first.runId, createdAt: first.at, lastUpdatedAt: events.at(-1)!.at, ttl: null, pollInterval: MCP_TASK_POLL_MS };
  const phase = runPhase(events);
  if (phase.phase === 'ended') {
    const end = taskEnd[phase.terminal.type as keyof typeof taskEnd] as (e: RunEvent) => Pick<McpTask, 'status' | 'statusMessage'>;
    return { ...base, ...end(phase.terminal) };
  }
  if (phase.phase === 'waiting') {
    return {
      ...base,
      status: 'input_required',
      statusMessage: `the run waits for a person: answer at /v1/requests (run ${first.runId})`,
    };
  }
  return { ...base, status: 'working' };
}

/**
 * The start body a tool call makes: the arguments are the run's parameters when the workflow has
 * a schema for them (the starter checks them against it); otherwise `{ input }` and nothing else.
 * `undefined` when arguments a parameterless workflow cannot take were given.
 */
export function startBodyOfToolCall(definition: unknown, args: Record<string, unknown>): Record<string, unknown> | undefined {
  if (definitionFields(definition).parameters) return { parameters: args };
  if (Object.keys(args).some((key) => key !== 'input')) return undefined;
  return { input: args.input ?? null };
}

/** What an event means to a tool call in flight: a progress message, its answer (the call ends), or nothing. */
export type ToolCallStep = { progress: string } | { answer: McpToolResult } | null;

const meta = (e: RunEvent) => ({ [MCP_RUN_META_KEY]: e.runId });
const progress = (e: RunEvent, what: string): ToolCallStep => ({ progress: `${e.nodeId ?? e.path} ${what}` });

/**
 * Each event's meaning to a tool call. The call ends at the run's end, and at its wait for a
 * person (the caller is told where to answer: the call itself cannot).
 */
export const toolCallStepAfter: { readonly [T in RunEventType]: (e: RunEventOf<T>) => ToolCallStep } = {
  'run.queued': () => null,
  'run.started': () => null,
  'run.awaiting': (e) => {
    const what = e.data.reason === 'tool_approval' ? 'a tool call approved' : 'an answer';
    const requestIds = e.data.requestIds ?? [];
    const text =
      `the run waits for ${what} from a person (requests ${requestIds.join(', ') || 'pending'}); ` +
      `answer at /v1/requests and follow /v1/runs/${e.runId}/events`;
    const structuredContent = { runId: e.runId, status: 'awaiting', reason: e.data.reason, requestIds };
    return { answer: { content: [{ type: 'text', text }], structuredContent, _meta: meta(e) } };
  },
  'run.resumed': () => null,
  'run.yielded': () => null,
  'run.completed': (e) => ({
    answer: { content: [{ type: 'text', text: JSON.stringify(e.data.output, null, 2) }], structuredContent: e.data.output, _meta: meta(e) },
  }),
  'run.failed': (e) => ({
    answer: {
      content: [{ type: 'text', text: `the run failed (${e.data.error.code}): ${e.data.error.message}` }],
      isError: true,
      _meta: meta(e),
    },
  }),
  'run.canceled': (e) => ({
    answer: {
      content: [{ type: 'text', text: `the run was canceled${e.data.reason ? `: ${e.data.reason}` : ''}` }],
      isError: true,
      _meta: meta(e),
    },
  }),
  'node.started': () => null,
  'node.completed': (e) => progress(e, 'completed'),
  'node.failed': (e) => progress(e, `failed: ${e.data.error.message}`),
  'model.started': () => null,
  'model.completed': () => null,
  'model.failed': () => null,
  'tool.called': (e) => progress(e, `calls ${e.data.name}`),
  'tool.returned': () => null,
  'loop.iteration': () => null,
  'branch.started': () => null,
  'branch.completed': () => null,
  'input.requested': () => null,
  'input.answered': () => null,
  'approval.requested': () => null,
  'approval.resolved': () => null,
  'checkpoint.saved': () => null,
  'context.truncated': () => null,
  'memory.compacted': () => null,
  'retrieval.completed': () => null,
  'usage.reported': () => null,
  'attempt.failed': () => null,
  custom: () => null,
};

/** `toolCallStepAfter` for any event. */
export function toolCallStepOf(event: RunEvent): ToolCallStep {
  return (toolCallStepAfter[event.type] as (e: RunEvent) => ToolCallStep)(event);
}

/** `description` and `parameters` of a stored definition of any kind, read defensively (it is catalog data). */
function definitionFields(definition: unknown): { description?: string; parameters?: McpTool['inputSchema'] } {
  if (!isJsonObject(definition)) return {};
  const { description, parameters } = definition;
  return {
    ...(typeof description === 'string' && { description }),
    // Arguments are an object whatever else the schema says: MCP asks for `type: object`.
    ...(isJsonObject(parameters) && { parameters: { ...parameters, type: 'object' as const } }),
  };
}

/** An open request to a person, as `openRequestsOf` lists it. */
export type OpenRequest = ReturnType<typeof openRequestsOf>[number];

/** An MCP form elicitation (`elicitation/create`, form mode): what to ask and the flat schema of the answer. */
export interface McpElicitation {
  message: string;
  requestedSchema: { type: 'object'; properties: Record<string, Record<string, unknown>>; required?: string[] };
}

/**
 * A request as an elicitation, when MCP's form mode can ask it: a yes/no, a text, a JSON answer
 * whose schema is an object of primitive fields, a plan to approve or revise, or a tool call to
 * approve (shown with its arguments). `undefined` for anything richer: the call then says where
 * to answer, as for a client without elicitation.
 */
export function mcpElicitationOf(request: OpenRequest): McpElicitation | undefined {
  if (request.kind === 'approval') {
    const { name, arguments: args } = request.call;
    return {
      message: `${request.prompt}\n\nThe call: ${name}(${JSON.stringify(args)})`,
      requestedSchema: {
        type: 'object',
        properties: {
          approve: { type: 'boolean', title: `Run ${name} with these arguments` },
          message: { type: 'string', title: 'Why (optional)' },
        },
        required: ['approve'],
      },
    };
  }
  const ask = (properties: McpElicitation['requestedSchema']['properties'], required: string[]) => ({
    message: request.prompt,
    requestedSchema: { type: 'object' as const, properties, required },
  });
  switch (request.form.kind) {
    case 'boolean':
      return ask({ approved: { type: 'boolean', title: 'Yes' } }, ['approved']);
    case 'text':
      return ask({ text: { type: 'string', title: 'Answer' } }, ['text']);
    case 'plan_review':
      return ask({ approved: { type: 'boolean', title: 'Approve the plan' }, text: { type: 'string', title: 'Revision' } }, ['approved']);
    case 'json':
      return flatObjectSchema(request.form.schema) ? ask(request.form.schema.properties, request.form.schema.required ?? []) : undefined;
  }
}

/** What a person's elicitation answer (`content` of an `accept`) answers the request with: bound to the exact call for an approval. */
export function answerOfElicitation(request: OpenRequest, content: Record<string, unknown>): Record<string, unknown> {
  if (request.kind === 'approval') {
    const { callId, name, argumentsHash } = request.call;
    const message = typeof content.message === 'string' && content.message !== '' ? { message: content.message } : {};
    return { decision: content.approve === true ? 'approve' : 'reject', callId, name, argumentsHash, ...message };
  }
  switch (request.form.kind) {
    case 'boolean':
      return { approved: content.approved };
    case 'text':
      return { text: content.text };
    case 'plan_review':
      return { approved: content.approved, ...(typeof content.text === 'string' && content.text !== '' && { text: content.text }) };
    case 'json':
      return { data: content };
  }
}

function flatObjectSchema(
  schema: Record<string, unknown> | undefined,
): schema is { properties: McpElicitation['requestedSchema']['properties']; required?: string[] } {
  return formFieldsOf(schema) !== undefined;
}
