import { z } from 'zod';
import { runSummarySchema, runTraceSchema } from '../trace-queries';
import { threadSchema } from '../threads';
import { overviewSchema } from '../overview';
import { runLineageSchema } from '../run-lineage';
import { webhookSchema } from '../webhooks';
import { scheduleSchema } from '../schedules';
import { newScoreBodySchema, scoreNameSchema, scoreSchema } from '../scores';
import { scoreConfigBodySchema, scoreConfigListSchema, scoreConfigSchema, scoreSettingsBodySchema } from '../score-configs';
import { runEvaluationSchema } from '../evaluators';
import {
  DOCUMENT_ID_PATTERN,
  documentJsonBodySchema,
  knowledgeBaseNameSchema,
  knowledgeBaseSaveSchema,
  knowledgeBaseSchema,
  knowledgeDocumentSchema,
  knowledgeQueryBodySchema,
  retrieveAnswerSchema,
} from '../knowledge';
import { agUiRunInputSchema } from '../ag-ui';
import { uiChatRequestSchema } from '../ui-chat';
import { jsonRpcMessageSchema } from '../json-rpc';
import { storedFileSchema } from '../attachments';
import { SNIFFABLE_MEDIA_TYPES } from '../file-media-type';
import { capabilityCheckQuerySchema, functionListSchema, toolListSchema } from '../runner-capabilities';
import * as rq from './request.schemas';
import { datasetOperations, experimentOperations } from './dataset-operations';
import { replayOperations } from './replay-operations';
import * as rs from './response.schemas';

export { REQUEST_HEADERS } from './http-operation.types';
export type { HttpMethod, HttpOperation, HttpResponseSpec, RequestHeaderName } from './http-operation.types';
import { ok, taggedAs, type HttpMethod, type HttpOperation, type HttpResponseSpec } from './http-operation.types';

/** The definition language's schemas (from `@spindle/engine`, which contracts cannot import). */
export interface DefinitionSchemas {
  /** A workflow definition as `PUT /v1/workflows/{name}` takes it. */
  readonly workflowDefinition: z.ZodType;
  /** An agent spec as `PUT /v1/agents/{name}` takes it (the name comes from the path). */
  readonly agentSpec: z.ZodType;
}

const noContent: HttpResponseSpec = { description: 'Deleted.' };

/** Every `/v1` operation the gateway serves. */
export function httpOperations(defs: DefinitionSchemas): readonly HttpOperation[] {
  return [
    ...metaOperations(),
    ...catalogOperations(defs),
    ...capabilityOperations(),
    ...runOperations(),
    ...threadOperations(),
    ...webhookOperations(),
    ...scheduleOperations(),
    ...knowledgeOperations(),
    ...datasetOperations(),
    ...experimentOperations(),
    ...replayOperations(),
    ...requestOperations(),
    ...fileOperations(),
    ...adminOperations(),
    ...protocolOperations(),
  ];
}

function metaOperations(): HttpOperation[] {
  return [
    {
      operationId: 'getOpenApiDocument',
      method: 'GET',
      path: '/v1/openapi.json',
      tag: 'meta',
      summary: 'This document',
      responses: { 200: ok('The OpenAPI 3.1 document of the API.', rs.openApiDocumentSchema) },
    },
    {
      operationId: 'getAuthConfig',
      method: 'GET',
      path: '/v1/auth/config',
      tag: 'meta',
      summary: 'How to sign in',
      responses: { 200: ok('What the console sign-in page offers.', rs.authConfigSchema) },
    },
    {
      operationId: 'getMe',
      method: 'GET',
      path: '/v1/me',
      tag: 'meta',
      summary: 'Who the caller is',
      responses: { 200: ok('The caller.', rs.meSchema) },
    },
  ];
}

function catalogOperations(defs: DefinitionSchemas): HttpOperation[] {
  const agent = { name: rq.pathParamSchemas.agentName };
  return [
    {
      operationId: 'listWorkflows',
      method: 'GET',
      path: '/v1/workflows',
      tag: 'workflows',
      summary: 'List workflows',
      responses: { 200: ok("The tenant's workflows.", rs.workflowListSchema) },
    },
    {
      operationId: 'getWorkflow',
      method: 'GET',
      path: '/v1/workflows/:name',
      tag: 'workflows',
      summary: 'Get a workflow (its latest version, or `version`)',
      query: rq.workflowVersionQuerySchema,
      responses: { 200: ok('The latest version, or the one asked for.', rs.workflowVersionSchema) },
    },
    {
      operationId: 'getWorkflowGraph',
      method: 'GET',
      path: '/v1/workflows/:name/graph',
      tag: 'workflows',
      summary: 'Draw a workflow',
      query: rq.workflowVersionQuerySchema,
      responses: {
        200: ok('Nodes, edges, layout hints and Mermaid text of the latest (or `version`) definition.', rs.workflowGraphSchema),
      },
    },
    {
      operationId: 'listWorkflowVersions',
      method: 'GET',
      path: '/v1/workflows/:name/versions',
      tag: 'workflows',
      summary: 'List the versions of a workflow',
      responses: { 200: ok('Newest first.', rs.workflowVersionsSchema) },
    },
    {
      operationId: 'diffWorkflowVersions',
      method: 'GET',
      path: '/v1/workflows/:name/versions/:from/diff/:to',
      tag: 'workflows',
      summary: 'Compare two versions of a workflow',
      description:
        'Nodes matched by id, edges by their ends and handle, agents and tools by name; a field at a path like `/nodes/draft/prompt`.',
      responses: {
        200: ok('Nodes and edges added, removed and changed, every field that differs, and a unified text diff.', rs.catalogDiffSchema),
      },
    },
    {
      operationId: 'rollbackWorkflow',
      method: 'POST',
      path: '/v1/workflows/:name/rollback',
      tag: 'workflows',
      summary: "Save an earlier version's definition as the next version",
      description:
        'Checked like a save: the agents and workflows it names must still exist, and its functions and tools a live runner must have ' +
        '(unless `check=definition-only`). Recorded in the audit log.',
      query: capabilityCheckQuerySchema,
      body: rq.rollbackBodySchema,
      responses: {
        200: ok('Unchanged: that version already is the latest definition.', rs.catalogRolledBackSchema),
        201: ok('Saved as a new version.', rs.catalogRolledBackSchema),
      },
    },
    {
      operationId: 'putWorkflow',
      method: 'PUT',
      path: '/v1/workflows/:name',
      tag: 'workflows',
      summary: 'Save a workflow definition as its next version',
      description: CAPABILITY_CHECK_DESCRIPTION,
      query: capabilityCheckQuerySchema,
      body: defs.workflowDefinition,
      responses: {
        200: ok('Unchanged: the definition equals the latest version.', rs.catalogSavedSchema),
        201: ok('Saved as a new version.', rs.catalogSavedSchema),
      },
    },
    {
      operationId: 'deleteWorkflow',
      method: 'DELETE',
      path: '/v1/workflows/:name',
      tag: 'workflows',
      summary: 'Delete a workflow',
      responses: { 204: noContent },
    },
    {
      operationId: 'listAgents',
      method: 'GET',
      path: '/v1/agents',
      tag: 'agents',
      summary: 'List agents',
      responses: { 200: ok("The tenant's agents.", rs.agentListSchema) },
    },
    {
      operationId: 'getAgent',
      method: 'GET',
      path: '/v1/agents/:name',
      tag: 'agents',
      summary: 'Get an agent',
      params: agent,
      responses: { 200: ok('The agent.', rs.storedAgentSchema) },
    },
    {
      operationId: 'listAgentVersions',
      method: 'GET',
      path: '/v1/agents/:name/versions',
      tag: 'agents',
      summary: 'List the versions of an agent',
      params: agent,
      responses: { 200: ok('Newest first.', rs.workflowVersionsSchema) },
    },
    {
      operationId: 'diffAgentVersions',
      method: 'GET',
      path: '/v1/agents/:name/versions/:from/diff/:to',
      tag: 'agents',
      summary: 'Compare two versions of an agent',
      params: agent,
      responses: { 200: ok('Every field that differs, and a unified text diff.', rs.catalogDiffSchema) },
    },
    {
      operationId: 'rollbackAgent',
      method: 'POST',
      path: '/v1/agents/:name/rollback',
      tag: 'agents',
      summary: "Save an earlier version's spec as the next version",
      params: agent,
      body: rq.rollbackBodySchema,
      responses: {
        200: ok('Unchanged: that version already is the latest spec.', rs.catalogRolledBackSchema),
        201: ok('Saved as a new version.', rs.catalogRolledBackSchema),
      },
    },
    {
      operationId: 'putAgent',
      method: 'PUT',
      path: '/v1/agents/:name',
      tag: 'agents',
      summary: 'Save an agent that patterns name with `{ "ref": "<name>" }`',
      params: agent,
      body: defs.agentSpec,
      responses: { 200: ok('Unchanged.', rs.catalogSavedSchema), 201: ok('Saved as a new version.', rs.catalogSavedSchema) },
    },
    {
      operationId: 'deleteAgent',
      method: 'DELETE',
      path: '/v1/agents/:name',
      tag: 'agents',
      summary: 'Delete an agent',
      params: agent,
      responses: { 204: noContent },
    },
  ];
}

const CAPABILITY_CHECK_DESCRIPTION =
  'Checked against what the live runners announce: a function no runner has is `400 function_not_found`, a tool no runner has ' +
  '`400 tool_not_found`, a `runTimeoutMs` above the lowest runner ceiling `400 invalid_definition`, each naming the field. ' +
  '`check=definition-only` saves without asking the runners (to deploy a workflow before its runner); with no runner announced ' +
  'nothing is refused. The `Spindle-Capability-Check` response header says which: `passed`, `skipped-on-request` or `skipped-no-runners`.';

function capabilityOperations(): HttpOperation[] {
  const runners =
    'Merged across the live runners (every tenant is served by the same runners); ' +
    'a name that differs between runners is listed per variant, each with its runners.';
  return [
    {
      operationId: 'listFunctions',
      method: 'GET',
      path: '/v1/functions',
      tag: 'runners',
      summary: 'List the functions the live runners have',
      description: runners,
      responses: { 200: ok('Functions by name, with their schemas, plugin and runners.', functionListSchema) },
    },
    {
      operationId: 'listTools',
      method: 'GET',
      path: '/v1/tools',
      tag: 'runners',
      summary: 'List the tools the live runners have',
      description: runners,
      responses: { 200: ok('Tools by name, with their schemas, plugin and runners.', toolListSchema) },
    },
  ];
}

function threadOperations(): HttpOperation[] {
  return [
    {
      operationId: 'createThread',
      method: 'POST',
      path: '/v1/threads',
      tag: 'threads',
      summary: 'Create a thread',
      body: rq.newThreadBodySchema,
      responses: { 201: ok('The thread, idle and without runs.', threadSchema) },
    },
    {
      operationId: 'listThreads',
      method: 'GET',
      path: '/v1/threads',
      tag: 'threads',
      summary: 'List threads',
      query: rq.threadsListQuerySchema,
      responses: { 200: ok('Newest first.', rs.threadListSchema) },
    },
    {
      operationId: 'getThread',
      method: 'GET',
      path: '/v1/threads/:threadId',
      tag: 'threads',
      summary: 'Get a thread',
      responses: { 200: ok('The thread.', threadSchema) },
    },
    {
      operationId: 'getThreadState',
      method: 'GET',
      path: '/v1/threads/:threadId/state',
      tag: 'threads',
      summary: "The thread's state",
      description: 'The end state of its last completed run that was not rolled back: what its next run starts from.',
      responses: { 200: ok('The state, and the run it is from.', rs.threadStateSchema) },
    },
    {
      operationId: 'setThreadState',
      method: 'POST',
      path: '/v1/threads/:threadId/state',
      tag: 'threads',
      summary: "Change the thread's state",
      description:
        "`merge` (default) writes `values` over the state's keys; `replace` makes `values` the state. Recorded like a run " +
        '(workflow `_thread_state`: `run.queued` then `run.completed` with the new state, started by the caller) so the ' +
        "thread's state stays a fold of the log, and in the audit log. `409 thread_busy` while a run of the thread has not ended.",
      body: rq.threadStateBodySchema,
      responses: { 200: ok('The new state, and the record of the change.', rs.threadStateSchema) },
    },
    {
      operationId: 'listThreadRuns',
      method: 'GET',
      path: '/v1/threads/:threadId/runs',
      tag: 'threads',
      summary: "The thread's runs, in order",
      responses: { 200: ok('Oldest first.', rs.threadRunsSchema) },
    },
    {
      operationId: 'startThreadRun',
      method: 'POST',
      path: '/v1/threads/:threadId/runs',
      tag: 'threads',
      summary: "Start a run from the thread's state",
      description:
        'On a busy thread (a run has not ended, or waits on a person) `multitaskStrategy` decides: `reject` (`409 thread_busy`, ' +
        'the default), `enqueue` (it starts when the runs before it have ended), `interrupt` (they are canceled, and it starts ' +
        "from the interrupted run's latest checkpoint), `rollback` (they are canceled and left out of the thread's state).",
      body: rq.threadRunBodySchema,
      responses: { 202: ok('Started (`queued`) or waiting for its turn (`pending`).', rs.threadRunAcceptedSchema) },
    },
  ];
}

function webhookOperations(): HttpOperation[] {
  return [
    {
      operationId: 'createWebhook',
      method: 'POST',
      path: '/v1/webhooks',
      tag: 'webhooks',
      summary: 'Subscribe a URL to run events',
      description:
        'Each event (`run.completed`, `run.failed`, `run.canceled`, `run.awaiting`) of the runs it matches (every run, one ' +
        "workflow's or one thread's) is POSTed as JSON, signed (`Spindle-Signature`), and retried with exponential back-off " +
        'for 24 h until a 2xx; then the delivery is `dead`. https only unless the deployment allows http; internal addresses ' +
        'only when on its allow-list (checked again, per address, at every delivery).',
      body: rq.newWebhookBodySchema,
      responses: { 201: ok('The subscription, with its signing secret (shown only here).', rs.createdWebhookSchema) },
    },
    {
      operationId: 'listWebhooks',
      method: 'GET',
      path: '/v1/webhooks',
      tag: 'webhooks',
      summary: 'List webhooks',
      responses: { 200: ok('Newest first.', rs.webhookListSchema) },
    },
    {
      operationId: 'getWebhook',
      method: 'GET',
      path: '/v1/webhooks/:webhookId',
      tag: 'webhooks',
      summary: 'Get a webhook',
      responses: { 200: ok('The subscription (without its secret).', webhookSchema) },
    },
    {
      operationId: 'deleteWebhook',
      method: 'DELETE',
      path: '/v1/webhooks/:webhookId',
      tag: 'webhooks',
      summary: 'Delete a webhook',
      description: 'Deliveries not made yet are canceled; the ones made stay readable.',
      responses: { 204: noContent },
    },
    {
      operationId: 'listWebhookDeliveries',
      method: 'GET',
      path: '/v1/webhooks/:webhookId/deliveries',
      tag: 'webhooks',
      summary: "A webhook's deliveries and their attempts",
      query: rq.webhookDeliveriesQuerySchema,
      responses: { 200: ok('Newest first.', rs.webhookDeliveriesSchema) },
    },
  ];
}

function scheduleOperations(): HttpOperation[] {
  const one = (operationId: string, method: HttpMethod, suffix: string, summary: string, responses: HttpOperation['responses']) => ({
    operationId,
    method,
    path: `/v1/schedules/:scheduleId${suffix}`,
    tag: 'schedules',
    summary,
    responses,
  });
  return [
    {
      operationId: 'createSchedule',
      method: 'POST',
      path: '/v1/schedules',
      tag: 'schedules',
      summary: 'Run a workflow on a cron',
      description:
        'Every firing is a normal run (`run.queued` names `scheduledBy`) with the idempotency key `sch:<id>:<time>`, so a ' +
        'firing is started once however many gateways reach it. `overlap` decides a firing that comes while the last run has ' +
        'not ended; `catchUp` the firings missed while no gateway was up. A cron that fires more often than the deployment ' +
        'allows (`SPINDLE_SCHEDULE_MIN_INTERVAL_MS`, 60 s) is refused.',
      body: rq.newScheduleBodySchema,
      responses: { 201: ok('The schedule, with when it fires next.', scheduleSchema) },
    },
    {
      operationId: 'listSchedules',
      method: 'GET',
      path: '/v1/schedules',
      tag: 'schedules',
      summary: 'List schedules',
      responses: { 200: ok('Newest first.', rs.scheduleListSchema) },
    },
    one('getSchedule', 'GET', '', 'Get a schedule', { 200: ok('The schedule.', scheduleSchema) }),
    one('listScheduleFirings', 'GET', '/firings', "A schedule's firings", { 200: ok('Newest first.', rs.scheduleFiringsSchema) }),
    one('pauseSchedule', 'POST', '/pause', 'Pause a schedule', { 200: ok('Paused: no firing until it is resumed.', scheduleSchema) }),
    one('resumeSchedule', 'POST', '/resume', 'Resume a schedule', {
      200: ok('Firing again from its next time; what was missed while paused is not made up.', scheduleSchema),
    }),
    one('triggerSchedule', 'POST', '/trigger', 'Fire a schedule now', {
      202: ok('A firing now, decided like any other.', z.object({ scheduleId: z.string(), fireAt: z.string() })),
    }),
    one('deleteSchedule', 'DELETE', '', 'Delete a schedule', { 204: noContent }),
  ];
}

function runOperations(): HttpOperation[] {
  return [
    {
      operationId: 'startRun',
      method: 'POST',
      path: '/v1/workflows/:name/runs',
      tag: 'runs',
      summary: 'Start a run',
      description: "With `Accept: text/event-stream` the answer is the run's event stream (`200`) instead of `202`.",
      headers: ['Idempotency-Key'],
      body: rq.startRunBodySchema,
      responses: { 200: { description: "The run's events, live.", eventStream: true }, 202: ok('Queued.', rs.runAcceptedSchema) },
    },
    {
      operationId: 'listRuns',
      method: 'GET',
      path: '/v1/runs',
      tag: 'runs',
      summary: 'List runs, newest first',
      description:
        'Internal runs (workflows named `_…`: `_thread_state` records a thread state change) are left out unless ' +
        '`internal=include`; they stay in their thread (`GET /v1/threads/{threadId}/runs`) and in the log.',
      query: rq.runsListQuerySchema,
      responses: { 200: ok('One page; `nextCursor` asks for the next.', rs.runListSchema) },
    },
    {
      operationId: 'getOverview',
      method: 'GET',
      path: '/v1/overview',
      tag: 'runs',
      summary: 'Overview of runs',
      description:
        "The dashboards' figures of the caller's tenant, overall or for one workflow: runs per status, p50/p95 duration, tokens and " +
        'cost per UTC day; top error codes; the slowest nodes; pending requests by age. Internal runs (workflows named `_…`) ' +
        'are not counted.',
      query: rq.overviewQuerySchema,
      responses: { 200: ok('The figures of the window.', overviewSchema) },
    },
    {
      operationId: 'getRun',
      method: 'GET',
      path: '/v1/runs/:id',
      tag: 'runs',
      summary: 'Get a run',
      responses: { 200: ok('The run; a queued run has its `queue` position.', runSummarySchema) },
    },
    {
      operationId: 'getRunTrace',
      method: 'GET',
      path: '/v1/runs/:id/trace',
      tag: 'runs',
      summary: "Get a run's trace",
      responses: { 200: ok('Spans, usage roll-ups and the run’s scores (each on the run or on one of its spans).', runTraceSchema) },
    },
    {
      operationId: 'getRunEvents',
      method: 'GET',
      path: '/v1/runs/:id/events',
      tag: 'runs',
      summary: "Read or follow a run's events",
      description:
        'JSON: the events after `after`. With `Accept: text/event-stream`: every event after ' +
        "`max(after, Last-Event-ID)`, then live until the run ends. A browser's `EventSource`, which cannot send " +
        '`Authorization`, carries a stream token of this run instead (`?access_token=sst_…`, from `createStreamToken`); ' +
        'a token of another run is `403 forbidden`, an expired or altered one, or one whose key was revoked, `401`.',
      query: rq.eventsQuerySchema,
      headers: ['Last-Event-ID'],
      responses: { 200: { description: 'The events.', json: rs.runEventsPageSchema, eventStream: true } },
    },
    {
      operationId: 'createStreamToken',
      method: 'POST',
      path: '/v1/runs/:id/stream-tokens',
      tag: 'runs',
      summary: "Mint a short-lived token that reads this run's events",
      description:
        'For a web page whose native `EventSource` cannot send `Authorization`: the token goes in the URL, ' +
        '`GET /v1/runs/{id}/events?access_token=<token>`, and works there only, for this run only, as the calling API key ' +
        'reading it, until `expiresAt` or until the key is revoked. Minted with an API key (`403` for other credentials). ' +
        'It is never logged: a URL that carries one is written `access_token=REDACTED`.',
      body: rq.streamTokenBodySchema,
      responses: { 201: ok('The token.', rs.streamTokenSchema) },
    },
    {
      operationId: 'recordScore',
      method: 'POST',
      path: '/v1/runs/:id/scores',
      tag: 'runs',
      summary: 'Score a run, or one of its spans',
      description:
        'A number, `true`/`false` or a category, with a comment, given by the caller (a person or an API key). ' +
        "Scores live beside the trace, never in the run's log: the log and its one terminal event are as they were. " +
        'A span the trace does not have is `404 span_not_found`. With an `Idempotency-Key`, a repeat answers the stored score ' +
        '(`200`, `Idempotent-Replayed: true`) and a different body under the key is `409 idempotency_key_reused`. ' +
        'The audit trail records `score.recorded`.',
      headers: ['Idempotency-Key'],
      body: newScoreBodySchema,
      responses: { 201: ok('The score.', scoreSchema), 200: ok('The stored score of this Idempotency-Key.', scoreSchema) },
    },
    {
      operationId: 'listScores',
      method: 'GET',
      path: '/v1/runs/:id/scores',
      tag: 'runs',
      summary: "A run's scores, oldest first",
      responses: { 200: ok('The scores.', z.object({ scores: z.array(scoreSchema) })) },
    },
    {
      operationId: 'listScoreConfigs',
      method: 'GET',
      path: '/v1/score-configs',
      tag: 'runs',
      summary: "The tenant's score configs, and whether its scores are strict",
      responses: { 200: ok('The configs, by name.', scoreConfigListSchema) },
    },
    {
      operationId: 'saveScoreConfig',
      method: 'PUT',
      path: '/v1/score-configs/:name',
      params: { name: scoreNameSchema },
      tag: 'runs',
      summary: 'Declare what a score of this name must be',
      description:
        'Its kind (`numeric`, `boolean`, `categorical`), a number’s range, a category’s labels. From then on a score of the name ' +
        'that does not fit (from a person, an API key or an evaluator) is `400 validation_failed` naming the field; an ' +
        'evaluator’s is recorded as its failure. Scores already stored are left as they are.',
      body: scoreConfigBodySchema,
      responses: { 201: ok('The new config.', scoreConfigSchema), 200: ok('The changed config.', scoreConfigSchema) },
    },
    {
      operationId: 'deleteScoreConfig',
      method: 'DELETE',
      path: '/v1/score-configs/:name',
      params: { name: scoreNameSchema },
      tag: 'runs',
      summary: 'Forget what a score of this name must be',
      responses: { 204: noContent },
    },
    {
      operationId: 'saveScoreSettings',
      method: 'PUT',
      path: '/v1/score-settings',
      tag: 'runs',
      summary: 'Make every score name need a config (strict), or not',
      description: 'With `strict: true`, a score whose name no config declares is `400 validation_failed` (field `name`).',
      body: scoreSettingsBodySchema,
      responses: { 200: ok('The settings.', z.object({ strict: z.boolean() })) },
    },
    {
      operationId: 'listRunEvaluations',
      method: 'GET',
      path: '/v1/runs/:id/evaluations',
      tag: 'runs',
      summary: "What the run's evaluators made of it",
      description:
        "One entry per evaluator of the run's definition that sampled it in, once the run completed: `pending`, `done` " +
        '(its score is among the run’s scores, given by the system on the evaluator’s behalf) or `failed` with why (the output ' +
        'has no such path, the cost is unknown, the stores stayed away). A failed or canceled run is not judged.',
      responses: { 200: ok('The evaluations.', z.object({ evaluations: z.array(runEvaluationSchema) })) },
    },
    {
      operationId: 'cancelRun',
      method: 'POST',
      path: '/v1/runs/:id/cancel',
      tag: 'runs',
      summary: 'Cancel a queued, running or waiting run',
      body: rq.cancelBodySchema,
      responses: { 200: ok('Canceled.', rs.cancelOutcomeSchema), 202: ok('Its runner is stopping it.', rs.cancelOutcomeSchema) },
    },
    {
      operationId: 'eraseRun',
      method: 'DELETE',
      path: '/v1/runs/:id',
      tag: 'runs',
      summary: 'Erase an ended run everywhere',
      description:
        "For data-protection requests: removes the run's log, payloads, trace, checkpoints, node results, requests and " +
        'idempotency keys, once every projection has applied its last event. Admin scope. A run that has not ended is ' +
        '`409 run_active` (cancel it first); a repeated erase of a run already gone is `404 run_not_found`. The audit ' +
        'trail records `run.erased`.',
      responses: { 204: noContent },
    },
    {
      operationId: 'listCheckpoints',
      method: 'GET',
      path: '/v1/runs/:id/checkpoints',
      tag: 'runs',
      summary: "List a run's checkpoints",
      responses: { 200: ok('Oldest first.', rs.checkpointListSchema) },
    },
    {
      operationId: 'getRunLineage',
      method: 'GET',
      path: '/v1/runs/:id/lineage',
      tag: 'runs',
      summary: "A run's fork tree",
      description:
        'The run its ancestry started from (following `forkedFrom` up), then every fork of it and the forks of those, depth ' +
        'first, each with the checkpoint it was forked at and who forked it. Only runs of the caller’s tenant.',
      responses: { 200: ok('The tree, root first.', runLineageSchema) },
    },
    {
      operationId: 'forkRun',
      method: 'POST',
      path: '/v1/runs/:id/fork',
      tag: 'runs',
      summary: 'Fork a run from a checkpoint',
      headers: ['Idempotency-Key'],
      body: rq.forkBodySchema,
      responses: { 202: ok('The new run is queued.', rs.forkAcceptedSchema) },
    },
  ];
}

function requestOperations(): HttpOperation[] {
  return [
    {
      operationId: 'listRequests',
      method: 'GET',
      path: '/v1/requests',
      tag: 'requests',
      summary: 'The inbox: requests for a person across runs',
      query: rq.requestsListQuerySchema,
      responses: { 200: ok('One page; `nextCursor` asks for the next.', rs.requestListSchema) },
    },
    {
      operationId: 'listRunRequests',
      method: 'GET',
      path: '/v1/runs/:id/requests',
      tag: 'requests',
      summary: "A run's requests",
      responses: { 200: ok('Every request of the run.', rs.runRequestsSchema) },
    },
    {
      operationId: 'answerRequest',
      method: 'POST',
      path: '/v1/runs/:id/requests/:requestId/respond',
      tag: 'requests',
      summary: 'Answer an input request or decide an approval',
      body: rq.answerBodySchema,
      responses: {
        200: ok('The same answer was already recorded.', rs.answerOutcomeSchema),
        202: ok('Recorded; the run resumes.', rs.answerOutcomeSchema),
      },
    },
  ];
}

function fileOperations(): HttpOperation[] {
  const one = (operationId: string, method: HttpMethod, suffix: string, summary: string, responses: HttpOperation['responses']) => ({
    operationId,
    method,
    path: `/v1/files/:fileId${suffix}`,
    tag: 'files',
    summary,
    responses,
  });
  return [
    {
      operationId: 'uploadFile',
      method: 'POST',
      path: '/v1/files',
      tag: 'files',
      summary: 'Upload a file',
      description:
        'The body is the file itself (not multipart); `Content-Type` is what the caller claims it is. The media type is ' +
        "decided from the bytes (magic numbers; UTF-8 for text) against the deployment's allow-list " +
        '(`SPINDLE_FILE_MEDIA_TYPES`): bytes of no allowed type, or a claim they contradict, are `415 ' +
        'unsupported_media_type`; more than `SPINDLE_MAX_FILE_BYTES` (20 MiB) is `413 payload_too_large`; an empty body ' +
        '`400`. A file is stored once per tenant by content: the same bytes again answer the same `fileId`. `?name=` ' +
        'names it. A run refers to it as `{ "type": "file", "fileId": … }` anywhere in its input.',
      query: rq.fileUploadQuerySchema,
      rawBody: SNIFFABLE_MEDIA_TYPES,
      responses: { 201: ok('Stored (or already stored: the same id).', storedFileSchema) },
    },
    one('getFile', 'GET', '', "A file's metadata", { 200: ok('The file.', storedFileSchema) }),
    one('getFileContent', 'GET', '/content', "A file's bytes", {
      200: {
        description:
          'The bytes, with the stored `Content-Type`, `ETag` (the sha256) and `X-Content-Type-Options: nosniff`; anything ' +
          'but an image comes as `Content-Disposition: attachment`.',
        binary: SNIFFABLE_MEDIA_TYPES,
      },
    }),
    one('deleteFile', 'DELETE', '', 'Delete a file', {
      204: {
        description: 'Deleted. A file a run still refers to is `409 conflict` (erase the run first, or let its retention end it).',
      },
    }),
  ];
}

function adminOperations(): HttpOperation[] {
  const tenantQuery = rq.tenantQuerySchema;
  return [
    {
      operationId: 'listKeys',
      method: 'GET',
      path: '/v1/keys',
      tag: 'admin',
      summary: 'List API keys',
      query: tenantQuery,
      responses: { 200: ok("The tenant's keys.", rs.apiKeyListSchema) },
    },
    {
      operationId: 'createKey',
      method: 'POST',
      path: '/v1/keys',
      tag: 'admin',
      summary: 'Make an API key',
      query: tenantQuery,
      body: rq.newKeyBodySchema,
      responses: { 201: ok('The key; its secret is shown this once.', rs.newApiKeySchema) },
    },
    {
      operationId: 'getKey',
      method: 'GET',
      path: '/v1/keys/:keyId',
      tag: 'admin',
      summary: 'Get an API key',
      query: tenantQuery,
      responses: { 200: ok('The key (never its secret).', rs.apiKeyViewSchema) },
    },
    {
      operationId: 'revokeKey',
      method: 'DELETE',
      path: '/v1/keys/:keyId',
      tag: 'admin',
      summary: 'Revoke an API key',
      query: tenantQuery,
      responses: { 200: ok('The revoked key.', rs.apiKeyViewSchema) },
    },
    {
      operationId: 'listTenants',
      method: 'GET',
      path: '/v1/tenants',
      tag: 'admin',
      summary: 'List tenants',
      responses: { 200: ok("Every tenant (the operator's admins) or the caller's own.", rs.tenantListSchema) },
    },
    {
      operationId: 'createTenant',
      method: 'POST',
      path: '/v1/tenants',
      tag: 'admin',
      summary: 'Make a tenant',
      body: rq.newTenantBodySchema,
      responses: { 201: ok('The tenant.', rs.tenantSchema) },
    },
    {
      operationId: 'getTenant',
      method: 'GET',
      path: '/v1/tenants/:tenant',
      tag: 'admin',
      summary: 'Get a tenant',
      responses: { 200: ok('The tenant.', rs.tenantSchema) },
    },
    {
      operationId: 'setTenantQuotas',
      method: 'PUT',
      path: '/v1/tenants/:tenant/quotas',
      tag: 'admin',
      summary: "Set a tenant's quotas",
      body: rq.tenantQuotasSchema,
      responses: { 200: ok('The tenant.', rs.tenantSchema) },
    },
    {
      operationId: 'listAudit',
      method: 'GET',
      path: '/v1/audit',
      tag: 'admin',
      summary: 'Read the audit log, newest first',
      query: rq.auditQuerySchema,
      responses: { 200: ok('One page; `nextCursor` asks for older entries.', rs.auditPageSchema) },
    },
  ];
}

/** An A2A agent card: documented by its main fields, the rest as A2A 0.3 has them. */
const a2aAgentCardSchema = z
  .looseObject({
    protocolVersion: z.string(),
    name: z.string(),
    description: z.string(),
    url: z.string(),
    preferredTransport: z.string(),
    version: z.string(),
    capabilities: z.looseObject({ streaming: z.boolean() }),
    skills: z.array(z.looseObject({ id: z.string(), name: z.string(), description: z.string() })),
  })
  .describe('An A2A agent card (A2A 0.3).');

function protocolOperations(): HttpOperation[] {
  const stateless = 'The endpoint is stateless (no `Mcp-Session-Id`): it offers no stream to GET and no session to DELETE.';
  return [
    {
      operationId: 'mcpMessage',
      method: 'POST',
      path: '/v1/mcp',
      tag: 'protocols',
      summary: 'Send an MCP message (streamable HTTP)',
      description:
        "The Model Context Protocol's streamable HTTP transport. Each workflow of the tenant is a tool: `tools/list` " +
        'gives its parameters as the input schema, `tools/call` runs it and answers with its output, sending a progress ' +
        'notification as each node ends when the call carries a `progressToken`. Send `Accept: application/json, text/event-stream`.',
      body: jsonRpcMessageSchema,
      responses: {
        200: {
          description: 'The answer: one JSON-RPC message, or an event stream of notifications ending with it.',
          json: jsonRpcMessageSchema,
          jsonRpcStream: true,
        },
        202: { description: 'A notification or an answer from the client: accepted, nothing to say.' },
      },
    },
    {
      operationId: 'getA2aAgentCard',
      method: 'GET',
      path: '/v1/a2a/:name/.well-known/agent-card.json',
      tag: 'protocols',
      summary: "A workflow's A2A agent card",
      description: 'A2A 0.3: one skill (the workflow), the JSON-RPC endpoint as `url`, bearer credentials, streaming.',
      responses: { 200: ok('The agent card.', a2aAgentCardSchema) },
    },
    {
      operationId: 'a2aMessage',
      method: 'POST',
      path: '/v1/a2a/:name',
      tag: 'protocols',
      summary: 'Send an A2A JSON-RPC request to a workflow',
      description:
        '`message/send` starts a run (a task) or, naming a task that needs input, answers its request; `message/stream` and ' +
        '`tasks/resubscribe` answer an event stream of JSON-RPC responses (the task, then status and artifact updates); ' +
        '`tasks/get`, `tasks/cancel`. Refusals are JSON-RPC error objects with HTTP 200.',
      body: jsonRpcMessageSchema,
      responses: {
        200: { description: 'One JSON-RPC response, or an event stream of them.', json: jsonRpcMessageSchema, jsonRpcStream: true },
      },
    },
    {
      operationId: 'agUiRun',
      method: 'POST',
      path: '/v1/ag-ui/:name',
      tag: 'protocols',
      summary: 'Run a workflow as an AG-UI agent',
      description:
        'AG-UI 1.0: a `RunAgentInput` starts a run (the last user message its input, `state` its state, ' +
        '`forwardedProps.parameters` its parameters) or, with `resume`, answers the interrupts of an earlier run and ' +
        'continues it. The answer is an event stream of AG-UI events: RUN_STARTED, steps, text messages, tool calls, ' +
        'state snapshot and deltas, then RUN_FINISHED (success, cancelled, or interrupt) or RUN_ERROR.',
      body: agUiRunInputSchema,
      responses: { 200: { description: 'AG-UI events, one per `data:` frame.', agUiStream: true } },
    },
    {
      operationId: 'uiChatSend',
      method: 'POST',
      path: '/v1/chat/:name',
      tag: 'protocols',
      summary: "Answer a chat's last message (the AI SDK's UI message stream)",
      description:
        "What a stock `useChat` with the default transport sends: the chat's id and messages. The chat is a thread of the " +
        "workflow; the last user message's text starts a run on it (interrupting one still answering), and the answer " +
        'is the run as a UI message stream: text, tool calls and results, `data-node` parts per node, `finish`.',
      body: uiChatRequestSchema,
      responses: { 200: { description: 'A UI message stream (`x-vercel-ai-ui-message-stream: v1`).', uiMessageStream: true } },
    },
    {
      operationId: 'uiChatResume',
      method: 'GET',
      path: '/v1/chat/:name/:chatId/stream',
      tag: 'protocols',
      summary: "Resume a chat's answer in progress",
      description: '`useChat` with `resume: true` asks this after a reload: the answer in progress from its start, or `204`.',
      responses: {
        200: { description: 'The answer in progress, as a UI message stream from its start.', uiMessageStream: true },
        204: { description: 'No answer in progress.' },
      },
    },
    {
      operationId: 'mcpStream',
      method: 'GET',
      path: '/v1/mcp',
      tag: 'protocols',
      summary: 'MCP server stream (not offered)',
      description: stateless,
      responses: { 405: { description: 'Always, with `Allow: POST`.' } },
    },
    {
      operationId: 'mcpEndSession',
      method: 'DELETE',
      path: '/v1/mcp',
      tag: 'protocols',
      summary: 'End an MCP session (not offered)',
      description: stateless,
      responses: { 405: { description: 'Always, with `Allow: POST`.' } },
    },
  ];
}

const knowledgeParams = { name: knowledgeBaseNameSchema };
const docParams = { ...knowledgeParams, documentId: z.string().regex(DOCUMENT_ID_PATTERN) };
const kbPath = '/v1/knowledge-bases/:name';

/** Knowledge bases: configuration, documents (ingested by the dispatcher), and a search to try. */
export function knowledgeOperations(): HttpOperation[] {
  const op = taggedAs('knowledge');
  return [
    op({
      operationId: 'saveKnowledgeBase',
      method: 'PUT',
      path: kbPath,
      params: knowledgeParams,
      summary: 'Create or change a knowledge base',
      description:
        'A change of `embeddingModel`, `dimensions` or `chunking` opens a new version: searches use it at once (empty until ' +
        'documents are ingested again); documents of older versions are kept until deleted.',
      body: knowledgeBaseSaveSchema,
      responses: { 200: ok('Changed.', knowledgeBaseSchema), 201: ok('Created.', knowledgeBaseSchema) },
    }),
    op({
      operationId: 'listKnowledgeBases',
      method: 'GET',
      path: '/v1/knowledge-bases',
      summary: 'List knowledge bases',
      responses: { 200: ok('By name.', z.object({ knowledgeBases: z.array(knowledgeBaseSchema) })) },
    }),
    op({
      operationId: 'getKnowledgeBase',
      method: 'GET',
      path: kbPath,
      params: knowledgeParams,
      summary: 'Get a knowledge base',
      responses: { 200: ok('The base.', knowledgeBaseSchema) },
    }),
    op({
      operationId: 'deleteKnowledgeBase',
      method: 'DELETE',
      path: kbPath,
      params: knowledgeParams,
      summary: 'Delete a knowledge base, its documents and chunks',
      responses: { 204: { description: 'Deleted.' } },
    }),
    op({
      operationId: 'addKnowledgeDocument',
      method: 'POST',
      path: `${kbPath}/documents`,
      params: knowledgeParams,
      summary: 'Add a document',
      description:
        'JSON `{ source, text, metadata }`, or a raw `text/plain`, `text/markdown` or `application/pdf` body named by `?source=`. ' +
        'Larger than `SPINDLE_MAX_DOCUMENT_BYTES` is `413`; empty, not text or a PDF without text is `422 invalid_document`; ' +
        "an embedding model whose vectors do not have the base's dimensions is `409 embedding_dimension_mismatch` (nothing is written).",
      query: z.object({ source: z.string().min(1).max(1_024).optional() }),
      body: documentJsonBodySchema,
      responses: {
        201: ok('Ingested: its chunks are searchable.', knowledgeDocumentSchema),
        202: ok('Stored and pending: the dispatcher ingests it shortly.', knowledgeDocumentSchema),
      },
    }),
    op({
      operationId: 'listKnowledgeDocuments',
      method: 'GET',
      path: `${kbPath}/documents`,
      params: knowledgeParams,
      summary: "A knowledge base's documents",
      responses: { 200: ok('Newest first.', z.object({ documents: z.array(knowledgeDocumentSchema) })) },
    }),
    op({
      operationId: 'getKnowledgeDocument',
      method: 'GET',
      path: `${kbPath}/documents/:documentId`,
      params: docParams,
      summary: 'Get a document',
      responses: { 200: ok('The document and its ingestion status.', knowledgeDocumentSchema) },
    }),
    op({
      operationId: 'deleteKnowledgeDocument',
      method: 'DELETE',
      path: `${kbPath}/documents/:documentId`,
      params: docParams,
      summary: 'Delete a document and its chunks',
      responses: { 204: { description: 'Deleted.' } },
    }),
    op({
      operationId: 'queryKnowledgeBase',
      method: 'POST',
      path: `${kbPath}/query`,
      params: knowledgeParams,
      summary: 'Search a knowledge base',
      description: 'What a `retrieve` node gets: hybrid (vector and full-text) scores, best first, `minScore` and `topK` applied.',
      body: knowledgeQueryBodySchema,
      responses: { 200: ok('The chunks.', retrieveAnswerSchema) },
    }),
  ];
}
