import { z } from 'zod';
import { multitaskStrategySchema, threadIdSchema } from './threads';
import { ErrorCodes } from './errors';
import { runIdSchema } from './run-id';
import { actorSchema, recordedActorSchema, tenantIdSchema } from './identity';
import { fileRefSchema } from './attachments';
import { contextCutKindSchema, retrievedChunkSchema, truncationStrategySchema } from './retrieval';

/**
 * The run log: one append-only, gapless sequence of events per run. Every event type is one
 * member of the discriminated union below; handlers map over `RunEventType` exhaustively.
 */
const errorCode = z.enum(Object.keys(ErrorCodes) as [keyof typeof ErrorCodes, ...(keyof typeof ErrorCodes)[]]);

export const usageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
  /** Of `inputTokens`, those read from the provider's prompt cache (when it reports them). */
  cachedInputTokens: z.number().int().nonnegative().optional(),
  /** Of `inputTokens`, those written to the provider's prompt cache (when it reports them). */
  cacheWriteTokens: z.number().int().nonnegative().optional(),
  /** Of `outputTokens`, those spent reasoning (when the provider reports them). */
  reasoningTokens: z.number().int().nonnegative().optional(),
  /** USD from the price table; absent when the model has no price (unpriced, never 0). */
  costUsd: z.number().nonnegative().optional(),
  /** Model calls in this total that had no price: its `costUsd` leaves them out. */
  unpricedCalls: z.number().int().nonnegative().optional(),
});
export type Usage = z.infer<typeof usageSchema>;

export const errorInfoSchema = z.object({
  code: errorCode,
  message: z.string(),
  correlationId: z.string().optional(),
  /** Node whose failure this is, when it is a node's. */
  nodeId: z.string().optional(),
});
export type ErrorInfo = z.infer<typeof errorInfoSchema>;

const jsonRecord = z.record(z.string(), z.unknown());

/** A custom event's name: a word or a dotted path (`order.looked_up`), never empty. */
export const customEventNameSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z][A-Za-z0-9_.:-]*$/, 'must start with a letter and hold only letters, digits, "_", ".", ":" and "-"');
/** The most a custom event's `data` may take, as canonical JSON. */
export const MAX_CUSTOM_EVENT_BYTES = 64 * 1024;

const envelopeFields = {
  runId: runIdSchema,
  seq: z.number().int().positive(),
  at: z.iso.datetime({ offset: true }),
  nodeId: z.string().optional(),
  spanId: z.string().min(1),
  parentSpanId: z.string().optional(),
  path: z.string().min(1),
  iteration: z.number().int().nonnegative().optional(),
  branchId: z.string().optional(),
};

function event<T extends string, D extends z.ZodType>(type: T, data: D) {
  return z.object({ ...envelopeFields, type: z.literal(type), data });
}

export const workflowRefSchema = z.object({ name: z.string(), version: z.number().int().positive() });

/** What a human node asks for; the answer's shape follows `kind`. */
export const inputFormSchema = z.object({
  kind: z.enum(['boolean', 'text', 'json', 'plan_review']),
  /** JSON Schema an answer's `data` must match (`json` forms). */
  schema: jsonRecordSchema().optional(),
  /** The plan under review, rendered from state (`plan_review` forms). */
  plan: z.unknown().optional(),
});
export type InputForm = z.infer<typeof inputFormSchema>;

/**
 * `single`: one answer; the same answer again is accepted and changes nothing, a different one
 * is refused. `multiple`: the first answer closes the request; any later one is refused.
 */
export const answerModeSchema = z.enum(['single', 'multiple']);
export type AnswerMode = z.infer<typeof answerModeSchema>;

/** A tool call waiting for approval, bound by id, name and a hash of its arguments. */
export const pendingToolCallSchema = z.object({
  callId: z.string(),
  name: z.string(),
  arguments: jsonRecordSchema(),
  argumentsHash: z.string(),
});
export type PendingToolCall = z.infer<typeof pendingToolCallSchema>;

/** A catalog version an answer asks the resumed run to continue with (same graph structure). */
const definitionUpgradeFields = {
  definitionVersion: z.number().int().positive().optional(),
  definition: z.unknown().optional(),
};

/**
 * Event data as the schema names it, also read from logs written before a field was renamed
 * (`fork_id` → `forkId`): the log is never rewritten, so old spellings are read forever.
 */
function legacyFields<S extends z.ZodObject>(renames: Record<string, string>, schema: S) {
  return z.preprocess((data) => {
    if (!data || typeof data !== 'object' || Array.isArray(data)) return data;
    const copy: Record<string, unknown> = { ...(data as Record<string, unknown>) };
    for (const [old, current] of Object.entries(renames)) {
      if (old in copy && !(current in copy)) copy[current] = copy[old];
      delete copy[old];
    }
    return copy;
  }, schema);
}

/** What a replay does at a call its recording does not have: stop the run there, or make the call. */
export const replayDivergenceModeSchema = z.enum(['stop', 'call']);
export type ReplayDivergenceMode = z.infer<typeof replayDivergenceModeSchema>;

/** The recorded event a replay served an answer from: the recorded run and the event's seq. */
const replayedFromSchema = z.object({ runId: runIdSchema, seq: z.number().int().positive() });

function jsonRecordSchema() {
  return z.record(z.string(), z.unknown());
}

export const runEventSchemas = {
  'run.queued': event(
    'run.queued',
    z.object({
      workflow: workflowRefSchema,
      input: z.unknown(),
      /** Initial state: the request's `state` merged first, then `input`. */
      state: jsonRecord,
      parameters: jsonRecord.optional(),
      /** The definition the run executes, so the log alone can replay or resume it. */
      definition: z.unknown(),
      /** Catalog workflows its subgraph nodes call, by reference (`name` or `name@version`), resolved at queue time. */
      subgraphs: z.record(z.string(), z.object({ version: z.number().int().positive(), definition: z.unknown() })).optional(),
      forkedFrom: z
        .object({
          runId: runIdSchema,
          seq: z.number().int().positive(),
          checkpointId: z.string().optional(),
          forkedBy: actorSchema.optional(),
        })
        .optional(),
      /**
       * A replay of a recorded run through this run's definition: model and tool calls the same as
       * the recording's are served from it; at one that differs the run stops (`replay_diverged`) or makes it.
       */
      replayOf: z
        .object({ runId: runIdSchema, onDivergence: replayDivergenceModeSchema, replayId: z.string().max(64).optional() })
        .optional(),
      /** A judge's run: the evaluation of another run it makes (a judge's own runs are never judged). */
      evaluates: z.object({ runId: runIdSchema, evaluationId: z.string().max(200) }).optional(),
      /** Whose run it is; absent in logs written before tenants (read as `default`). */
      tenant: tenantIdSchema.optional(),
      /** Who started it (absent in logs written before identity). */
      startedBy: actorSchema.optional(),
      /** A fork starts at its checkpoint's frontier instead of the graph's entry. */
      start: z.array(z.string()).optional(),
      /** Earlier runs (a fork's ancestry) whose node results this run may reuse. */
      cacheRuns: z.array(runIdSchema).max(64).optional(),
      /**
       * The thread the run goes on (its `state` is the thread's): its place there, and the runs
       * before it that this one rolled back (`multitaskStrategy: rollback`), left out of the thread's state.
       */
      /** Webhook subscriptions the run named when it was started. */
      webhooks: z.array(z.string()).max(8).optional(),
      /** The schedule whose firing started it, and the firing's time (its idempotency key names both). */
      scheduledBy: z.object({ scheduleId: z.string(), fireAt: z.string() }).optional(),
      thread: z
        .object({
          id: threadIdSchema,
          position: z.number().int().positive(),
          multitaskStrategy: multitaskStrategySchema,
          rollsBack: z.array(runIdSchema).max(64).optional(),
        })
        .optional(),
    }),
  ),
  'run.started': event('run.started', z.object({ attempt: z.number().int().positive(), worker: z.string() })),
  'run.awaiting': event(
    'run.awaiting',
    z.object({ reason: z.enum(['input', 'tool_approval']), requestIds: z.array(z.string()).optional() }),
  ),
  'run.resumed': event(
    'run.resumed',
    z.object({
      /** `answered`: a person answered; `worker_lost`: its runner died; `handed_back`: its runner shut down. */
      reason: z.enum(['answered', 'worker_lost', 'handed_back']),
      attempt: z.number().int().positive(),
      worker: z.string(),
      definitionVersion: z.number().int().positive().optional(),
    }),
  ),
  /** A runner shutting down stopped the run at a checkpoint and handed it back to the queue. */
  'run.yielded': event('run.yielded', z.object({ reason: z.string(), worker: z.string() })),
  'run.completed': event('run.completed', z.object({ output: jsonRecord, durationMs: z.number().nonnegative(), usage: usageSchema })),
  'run.failed': event(
    'run.failed',
    z.object({ error: errorInfoSchema, durationMs: z.number().nonnegative(), usage: usageSchema.optional() }),
  ),
  'run.canceled': event(
    'run.canceled',
    z.object({
      reason: z.string().optional(),
      durationMs: z.number().nonnegative().optional(),
      /** Who asked for it; absent when the run's own limits or an older gateway canceled it. */
      canceledBy: actorSchema.optional(),
    }),
  ),
  'node.started': event('node.started', z.object({ nodeType: z.string(), input: z.unknown() })),
  'node.completed': event(
    'node.completed',
    z.object({
      nodeType: z.string(),
      output: jsonRecord,
      handle: z.string().optional(),
      durationMs: z.number().nonnegative(),
      /** A `checkpoint: true` node's result key: sha256(runId | nodeId | iteration | inputHash). */
      cacheKey: z.string().optional(),
      /** The result was reused from that key instead of executing the node. */
      cachedFrom: z.string().optional(),
    }),
  ),
  'node.failed': event('node.failed', z.object({ nodeType: z.string(), error: errorInfoSchema, durationMs: z.number().nonnegative() })),
  'model.started': event(
    'model.started',
    z.object({
      model: z.string(),
      system: z.string().optional(),
      /** A single-prompt call's prompt. */
      prompt: z.string().optional(),
      /** The messages this call added to its conversation, each with its content `hash`. */
      messages: z.array(jsonRecord).optional(),
      /** Content hashes of the earlier messages the call also sent (logged by earlier model spans of the node). */
      history: z.array(z.string()).optional(),
      /** Names of the tools offered to the model. */
      tools: z.array(z.string()).optional(),
      /** Every file the call sends (from any of its messages), by reference: the trace shows their count and media types. */
      attachments: z.array(fileRefSchema).max(256).optional(),
      stream: z.boolean(),
    }),
  ),
  'model.completed': event(
    'model.completed',
    z.object({
      model: z.string(),
      text: z.string(),
      /** What the model reasoned before answering, where it shows it (absent when it showed none). */
      reasoning: z.string().optional(),
      toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: jsonRecord })).optional(),
      usage: usageSchema,
      finishReason: z.string().optional(),
      /** The model that answered, as the provider names it (absent when it did not say). */
      responseModel: z.string().max(256).optional(),
      durationMs: z.number().nonnegative(),
      /** The run's running totals after this call: the live cost ledger. */
      runUsage: usageSchema.optional(),
      /** A replay's answer served from its recording (no provider was called): the recorded call. Its usage is not spent again. */
      replayedFrom: replayedFromSchema.optional(),
    }),
  ),
  'model.failed': event('model.failed', z.object({ model: z.string(), error: errorInfoSchema, durationMs: z.number().nonnegative() })),
  'tool.called': event('tool.called', z.object({ name: z.string(), callId: z.string(), arguments: jsonRecord })),
  'tool.returned': event(
    'tool.returned',
    z.object({
      name: z.string(),
      callId: z.string(),
      result: z.unknown().optional(),
      /** A failed call is an observation the model sees, not a node failure. */
      error: errorInfoSchema.optional(),
      durationMs: z.number().nonnegative(),
      /** A replay's result served from its recording (the tool was not called): the recorded return. */
      replayedFrom: replayedFromSchema.optional(),
    }),
  ),
  /** A loop's iteration begins (the events inside it carry `iteration`). */
  'loop.iteration': event(
    'loop.iteration',
    legacyFields({ max_steps: 'maxSteps' }, z.object({ iteration: z.number().int().positive(), maxSteps: z.number().int().positive() })),
  ),
  /** A fork's branch begins (the events inside it carry `branchId`). */
  'branch.started': event(
    'branch.started',
    legacyFields({ fork_id: 'forkId', branch_id: 'branchId' }, z.object({ forkId: z.string(), branchId: z.string() })),
  ),
  'branch.completed': event(
    'branch.completed',
    legacyFields(
      { fork_id: 'forkId', branch_id: 'branchId', duration_ms: 'durationMs' },
      z.object({
        forkId: z.string(),
        branchId: z.string(),
        status: z.enum(['completed', 'failed']),
        durationMs: z.number().nonnegative(),
        /** A failed branch's failure. */
        error: errorInfoSchema.optional(),
      }),
    ),
  ),
  'input.requested': event(
    'input.requested',
    z.object({
      requestId: z.string(),
      prompt: z.string(),
      form: inputFormSchema,
      mode: answerModeSchema,
      expiresAt: z.iso.datetime({ offset: true }).optional(),
    }),
  ),
  'input.answered': event(
    'input.answered',
    z.object({
      requestId: z.string(),
      /** The answer (`approved`, `text` or `data`, and any `comment`); absent when the request timed out. */
      answer: jsonRecord.optional(),
      timedOut: z.boolean().optional(),
      answeredBy: recordedActorSchema,
      ...definitionUpgradeFields,
    }),
  ),
  'approval.requested': event(
    'approval.requested',
    z.object({
      requestId: z.string(),
      prompt: z.string(),
      call: pendingToolCallSchema,
      mode: answerModeSchema,
      expiresAt: z.iso.datetime({ offset: true }).optional(),
    }),
  ),
  'approval.resolved': event(
    'approval.resolved',
    z.object({
      requestId: z.string(),
      decision: z.enum(['approved', 'rejected']),
      callId: z.string(),
      name: z.string(),
      argumentsHash: z.string(),
      message: z.string().optional(),
      /** Nobody decided before the request's `expiresAt`: recorded as a rejection, so the call never runs. */
      timedOut: z.boolean().optional(),
      answeredBy: recordedActorSchema,
      ...definitionUpgradeFields,
    }),
  ),
  /**
   * A super-step boundary: what the state changed since the previous boundary and the nodes to
   * run next, enough to fork. The state there is the run's initial state (`run.queued`) with the
   * `changes` of its checkpoints up to this one laid over it, so the log never repeats a value
   * that did not change. Logs written before carry the whole `state` instead.
   */
  'checkpoint.saved': event(
    'checkpoint.saved',
    z
      .object({
        checkpointId: z.string(),
        step: z.number().int().nonnegative(),
        /** Top-level state keys whose value changed since the previous checkpoint (or the initial state). */
        changes: jsonRecord.optional(),
        /** The whole state: what checkpoints of older logs carry instead of `changes`. */
        state: jsonRecord.optional(),
        frontier: z.array(z.string()),
        /** Hash of the graph's structure (node ids, types, edges): a resume on another version must match it. */
        graphHash: z.string(),
      })
      .refine((d) => (d.changes === undefined) !== (d.state === undefined), 'a checkpoint carries either its changes or the whole state'),
  ),
  /**
   * Prompt assembly cut a part to keep the call inside its context budget: which part (`kind` and
   * `target`: the state field, the tool, the knowledge base, or `history`), its size before and
   * after in tokens, and how it was cut. A resumed run reads these back instead of recomputing them.
   */
  'context.truncated': event(
    'context.truncated',
    z.object({
      kind: contextCutKindSchema,
      target: z.string().max(256),
      tokensBefore: z.number().int().nonnegative(),
      tokensAfter: z.number().int().nonnegative(),
      strategy: truncationStrategySchema,
      /** `history` cuts: how many earlier messages were left out. */
      droppedMessages: z.number().int().nonnegative().optional(),
    }),
  ),
  /** A conversation's older turns were compacted (dropped, or replaced by a model's summary of them). */
  'memory.compacted': event(
    'memory.compacted',
    z.object({
      /** The state key holding the conversation (`memory_key`), or `history` for a node's own. */
      memoryKey: z.string().max(256),
      trigger: z.enum(['messages', 'tokens']),
      messagesBefore: z.number().int().nonnegative(),
      messagesAfter: z.number().int().nonnegative(),
      tokensBefore: z.number().int().nonnegative(),
      tokensAfter: z.number().int().nonnegative(),
      /** The summary that replaced the dropped turns, and the model that wrote it. */
      summary: z.string().optional(),
      summaryModel: z.string().optional(),
    }),
  ),
  /** A retriever answered a query: the chunks that may reach the prompt, with their scores. */
  'retrieval.completed': event(
    'retrieval.completed',
    z.object({
      /** `knowledge_base`, or the plugin or MCP tool that retrieved. */
      retriever: z.string().max(256),
      knowledgeBase: z.string().max(256),
      /** The knowledge base's version searched. */
      version: z.number().int().positive().optional(),
      query: z.string(),
      topK: z.number().int().positive(),
      minScore: z.number().optional(),
      chunkCount: z.number().int().nonnegative(),
      /** Absent when nothing matched. */
      topScore: z.number().optional(),
      chunks: z.array(retrievedChunkSchema).max(100),
      durationMs: z.number().nonnegative(),
    }),
  ),
  /**
   * User code (a plugin function or tool) reported what it spent outside a model call: a paid
   * API, an embedding, compute. `usage` is the amount; `runUsage` the run's totals after it, like
   * `model.completed`'s, so budgets and the live ledger count it before the next step starts.
   */
  'usage.reported': event(
    'usage.reported',
    z.object({
      usage: usageSchema,
      /** Named counts of whatever the code bills by (`requests`, `pages`, `seconds` …). */
      units: z.record(z.string().max(64), z.number().nonnegative().max(1e15)).optional(),
      /** What the spending was for, in the author's words. */
      label: z.string().max(200).optional(),
      /** The function or tool that reported it, and the tool call when a model made it. */
      source: z.object({ kind: z.enum(['function', 'tool']), name: z.string().max(256), callId: z.string().optional() }),
      runUsage: usageSchema,
    }),
  ),
  /**
   * One try of user code (a function or a tool) failed and another follows after `retryInMs`:
   * the trace shows every attempt of a retried call, not only the last.
   */
  'attempt.failed': event(
    'attempt.failed',
    z.object({
      kind: z.enum(['function', 'tool']),
      name: z.string().max(256),
      callId: z.string().optional(),
      attempt: z.number().int().positive(),
      error: errorInfoSchema,
      retryInMs: z.number().int().nonnegative(),
    }),
  ),
  /**
   * An event of the author's own: user code's `ctx.emit(name, data)` records `{ name, data }` under
   * the node's span. Other keys are tolerated (the log's own tests write free-form fillers).
   */
  custom: event('custom', z.looseObject({ name: customEventNameSchema.optional(), data: z.unknown().optional() })),
} as const;

export type RunEventType = keyof typeof runEventSchemas;
export const runEventTypes = Object.keys(runEventSchemas) as RunEventType[];

const schemaList = Object.values(runEventSchemas) as unknown as [
  (typeof runEventSchemas)[RunEventType],
  ...(typeof runEventSchemas)[RunEventType][],
];
export const runEventSchema = z.discriminatedUnion('type', schemaList);

/** An event's envelope with its data unread: what a reader checks of the types it does not fold. */
export const runEventEnvelopeSchema = z.looseObject({
  ...envelopeFields,
  type: z.enum(runEventTypes as [RunEventType, ...RunEventType[]]),
  data: z.unknown(),
});

export type RunEvent = z.infer<typeof runEventSchema>;
export type RunEventOf<T extends RunEventType> = z.infer<(typeof runEventSchemas)[T]>;
export type RunEventData<T extends RunEventType> = RunEventOf<T>['data'];

/** What a writer supplies; the log assigns `runId`, `seq` and `at`. */
export type RunEventDraft = {
  [T in RunEventType]: Omit<RunEventOf<T>, 'runId' | 'seq' | 'at'>;
}[RunEventType];

/**
 * One handler per event type: a consumer written as this map does not compile once a new event
 * type exists until it decides what that type means to it (no `default:` swallows it).
 */
export type RunEventHandlers<R = void> = { [T in RunEventType]: (event: RunEventOf<T>) => R };

/** Calls the handler of the event's type. */
export function onRunEvent<R>(handlers: RunEventHandlers<R>, event: RunEvent): R {
  return (handlers[event.type] as (e: RunEvent) => R)(event);
}

export const terminalEventTypes = ['run.completed', 'run.failed', 'run.canceled'] as const;
export type TerminalEventType = (typeof terminalEventTypes)[number];

export function isTerminalEvent(e: { type: string }): boolean {
  return (terminalEventTypes as readonly string[]).includes(e.type);
}
