import type {
  AddDatasetItemsBody,
  Dataset,
  DatasetItem,
  DatasetItemsAdded,
  Experiment,
  ExperimentComparison,
  ExperimentItem,
  NewExperimentBody,
  NewReplayBody,
  Replay,
  ReplayListItem,
  KnowledgeBase,
  KnowledgeBaseSave,
  KnowledgeDocument,
  NewScoreBody,
  RetrieveAnswer,
  Score,
  RunEvent,
  RunEvaluation,
  RunLineage,
  RunTrace,
} from '@spindle/contracts';
import type {
  AgentList,
  AnswerBody,
  AnswerOutcome,
  ApiKeyList,
  ApiKeyView,
  AuditFilter,
  AuditPage,
  AuthConfig,
  CancelOutcome,
  CheckpointList,
  CreatedKey,
  ForkAccepted,
  ForkBody,
  Me,
  NewKeyBody,
  NewTenantBody,
  OpenApiDocument,
  Overview,
  RequestList,
  RequestListFilter,
  RunAccepted,
  RunList,
  RunListFilter,
  RunRequests,
  RunSummary,
  SavedVersion,
  StartRunBody,
  StoredAgent,
  Tenant,
  TenantList,
  TenantQuotas,
  WorkflowGraph,
  WorkflowList,
  WorkflowVersion,
  WorkflowVersions,
  CatalogDiff,
  CatalogRolledBack,
  Thread,
  ThreadList,
  ThreadState,
  ThreadRuns,
  ThreadRunAccepted,
  ThreadRunRequest,
  NewWebhookBody,
  CreatedWebhook,
  WebhookList,
  Webhook,
  WebhookDeliveries,
  Schedule,
  ScheduleList,
  ScheduleFirings,
  NewScheduleRequest,
  StoredFile,
  FunctionList,
  ToolList,
} from '@spindle/contracts';
import { HttpTransport, type SpindleClientOptions } from './http-transport';
import { readRunEventsPage } from './run-events-page';
import { followRun, type FollowOptions } from './run-follower';

/** The start body's fields (`cancelOnDisconnect` belongs to the streamed start, which this call is not). */
export type StartRunOptions = Omit<StartRunBody, 'cancelOnDisconnect'> & {
  /** A retried start with the same key answers with the run the first one queued. */
  idempotencyKey?: string;
  signal?: AbortSignal;
};

/** Every call takes an optional `signal` last; every non-2xx answer rejects with `SpindleApiError`. */
export interface CallOptions {
  signal?: AbortSignal;
}

export type SpindleClient = ReturnType<typeof createSpindleClient>;

const seg = encodeURIComponent;

/** A typed client of the gateway's `/v1` API: the same in Node 20+ and browsers (global `fetch`, no Node APIs). */
export function createSpindleClient(options: SpindleClientOptions = {}) {
  const http = new HttpTransport(options);
  const idempotency = (key?: string) => (key === undefined ? undefined : { 'idempotency-key': key });

  return {
    /** Who the credential is: actor, tenant, scopes. */
    me: (o: CallOptions = {}) => http.json<Me>('/v1/me', o),
    /** How to sign in (public: needs no credential). */
    authConfig: (o: CallOptions = {}) => http.json<AuthConfig>('/v1/auth/config', o),
    /** The API's OpenAPI 3.1 document (public), as the gateway serves it. */
    openapi: (o: CallOptions = {}) => http.json<OpenApiDocument>('/v1/openapi.json', o),
    /** The dashboards' figures over the last `days` UTC days (default 14), overall or for one workflow. */
    overview: (o: CallOptions & { workflow?: string; days?: number } = {}) =>
      http.json<Overview>('/v1/overview', { query: { workflow: o.workflow, days: o.days }, signal: o.signal }),

    /** The functions the live runners have, merged across runners, each with the runners that have it. */
    functions: (o: CallOptions = {}) => http.json<FunctionList>('/v1/functions', o),
    /** The tools the live runners have, merged across runners, each with the runners that have it. */
    tools: (o: CallOptions = {}) => http.json<ToolList>('/v1/tools', o),

    workflows: {
      list: (o: CallOptions = {}) => http.json<WorkflowList>('/v1/workflows', o),
      get: (name: string, o: CallOptions & { version?: number } = {}) =>
        http.json<WorkflowVersion>(`/v1/workflows/${seg(name)}`, { query: { version: o.version }, signal: o.signal }),
      versions: (name: string, o: CallOptions = {}) => http.json<WorkflowVersions>(`/v1/workflows/${seg(name)}/versions`, o),
      graph: (name: string, o: CallOptions & { version?: number } = {}) =>
        http.json<WorkflowGraph>(`/v1/workflows/${seg(name)}/graph`, { query: { version: o.version }, signal: o.signal }),
      /**
       * Stores the definition as the workflow's next version (or answers `created: false` when unchanged).
       * `check: 'definition-only'` saves it without asking whether a live runner has its functions and tools.
       */
      put: (name: string, definition: unknown, o: CallOptions & { check?: 'full' | 'definition-only' } = {}) =>
        http.json<SavedVersion>(`/v1/workflows/${seg(name)}`, {
          method: 'PUT',
          body: definition,
          query: { check: o.check },
          signal: o.signal,
        }),
      delete: (name: string, o: CallOptions = {}) => http.json<void>(`/v1/workflows/${seg(name)}`, { method: 'DELETE', signal: o.signal }),
      /** Nodes, edges and fields that differ between two versions, and a text diff. */
      diff: (name: string, from: number, to: number, o: CallOptions = {}) =>
        http.json<CatalogDiff>(`/v1/workflows/${seg(name)}/versions/${from}/diff/${to}`, o),
      /** Saves an earlier version's definition as the next version. */
      rollback: (name: string, version: number, o: CallOptions = {}) =>
        http.json<CatalogRolledBack>(`/v1/workflows/${seg(name)}/rollback`, { method: 'POST', body: { version }, signal: o.signal }),
    },

    agents: {
      list: (o: CallOptions = {}) => http.json<AgentList>('/v1/agents', o),
      get: (name: string, o: CallOptions = {}) => http.json<StoredAgent>(`/v1/agents/${seg(name)}`, o),
      put: (name: string, spec: unknown, o: CallOptions = {}) =>
        http.json<SavedVersion>(`/v1/agents/${seg(name)}`, { method: 'PUT', body: spec, signal: o.signal }),
      delete: (name: string, o: CallOptions = {}) => http.json<void>(`/v1/agents/${seg(name)}`, { method: 'DELETE', signal: o.signal }),
      versions: (name: string, o: CallOptions = {}) => http.json<WorkflowVersions>(`/v1/agents/${seg(name)}/versions`, o),
      diff: (name: string, from: number, to: number, o: CallOptions = {}) =>
        http.json<CatalogDiff>(`/v1/agents/${seg(name)}/versions/${from}/diff/${to}`, o),
      rollback: (name: string, version: number, o: CallOptions = {}) =>
        http.json<CatalogRolledBack>(`/v1/agents/${seg(name)}/rollback`, { method: 'POST', body: { version }, signal: o.signal }),
    },

    threads: {
      create: (metadata: Record<string, unknown> = {}, o: CallOptions = {}) =>
        http.json<Thread>('/v1/threads', { method: 'POST', body: { metadata }, signal: o.signal }),
      list: (filter: { limit?: number; cursor?: string } & CallOptions = {}) => {
        const { signal, ...query } = filter;
        return http.json<ThreadList>('/v1/threads', { query: { ...query }, signal });
      },
      get: (threadId: string, o: CallOptions = {}) => http.json<Thread>(`/v1/threads/${seg(threadId)}`, o),
      /** What its next run starts from: the end state of its last completed run. */
      state: (threadId: string, o: CallOptions = {}) => http.json<ThreadState>(`/v1/threads/${seg(threadId)}/state`, o),
      runs: (threadId: string, o: CallOptions = {}) => http.json<ThreadRuns>(`/v1/threads/${seg(threadId)}/runs`, o),
      /** A run of `body.workflow` from the thread's state; on a busy thread `multitaskStrategy` decides (default `reject`). */
      start: (threadId: string, body: ThreadRunRequest, o: CallOptions = {}) =>
        http.json<ThreadRunAccepted>(`/v1/threads/${seg(threadId)}/runs`, { method: 'POST', body, signal: o.signal }),
    },

    webhooks: {
      /** Subscribes `url` to run events; the answer holds the signing `secret`, shown this once. */
      create: (body: NewWebhookBody, o: CallOptions = {}) =>
        http.json<CreatedWebhook>('/v1/webhooks', { method: 'POST', body, signal: o.signal }),
      list: (o: CallOptions = {}) => http.json<WebhookList>('/v1/webhooks', o),
      get: (webhookId: string, o: CallOptions = {}) => http.json<Webhook>(`/v1/webhooks/${seg(webhookId)}`, o),
      delete: (webhookId: string, o: CallOptions = {}) =>
        http.json<void>(`/v1/webhooks/${seg(webhookId)}`, { method: 'DELETE', signal: o.signal }),
      deliveries: (webhookId: string, filter: { limit?: number; cursor?: string } & CallOptions = {}) => {
        const { signal, ...query } = filter;
        return http.json<WebhookDeliveries>(`/v1/webhooks/${seg(webhookId)}/deliveries`, { query: { ...query }, signal });
      },
    },

    files: {
      /**
       * Uploads a file (its bytes as the body): the answer's `fileId` goes in a run's input as
       * `{ type: 'file', fileId }`. The gateway decides the type from the bytes; `contentType` is a claim it checks.
       */
      upload: (bytes: Uint8Array, o: { contentType?: string; name?: string } & CallOptions = {}) =>
        http.json<StoredFile>('/v1/files', {
          method: 'POST',
          query: { name: o.name },
          raw: { bytes, contentType: o.contentType ?? 'application/octet-stream' },
          signal: o.signal,
        }),
      get: (fileId: string, o: CallOptions = {}) => http.json<StoredFile>(`/v1/files/${seg(fileId)}`, o),
      delete: (fileId: string, o: CallOptions = {}) => http.json<void>(`/v1/files/${seg(fileId)}`, { method: 'DELETE', signal: o.signal }),
    },

    knowledgeBases: {
      /** Creates the base or changes it; a change of model, dimensions or chunking opens a new version. */
      put: (name: string, body: Omit<KnowledgeBaseSave, 'chunking'> & { chunking?: KnowledgeBaseSave['chunking'] }, o: CallOptions = {}) =>
        http.json<KnowledgeBase>(`/v1/knowledge-bases/${seg(name)}`, { method: 'PUT', body, signal: o.signal }),
      list: (o: CallOptions = {}) => http.json<{ knowledgeBases: KnowledgeBase[] }>('/v1/knowledge-bases', o),
      get: (name: string, o: CallOptions = {}) => http.json<KnowledgeBase>(`/v1/knowledge-bases/${seg(name)}`, o),
      delete: (name: string, o: CallOptions = {}) =>
        http.json<void>(`/v1/knowledge-bases/${seg(name)}`, { method: 'DELETE', signal: o.signal }),
      /** A text document (JSON); `ready` once ingested, `pending` when the dispatcher ingests it later. */
      addDocument: (name: string, body: { source: string; text: string; metadata?: Record<string, unknown> }, o: CallOptions = {}) =>
        http.json<KnowledgeDocument>(`/v1/knowledge-bases/${seg(name)}/documents`, { method: 'POST', body, signal: o.signal }),
      documents: (name: string, o: CallOptions = {}) =>
        http.json<{ documents: KnowledgeDocument[] }>(`/v1/knowledge-bases/${seg(name)}/documents`, o),
      document: (name: string, documentId: string, o: CallOptions = {}) =>
        http.json<KnowledgeDocument>(`/v1/knowledge-bases/${seg(name)}/documents/${seg(documentId)}`, o),
      deleteDocument: (name: string, documentId: string, o: CallOptions = {}) =>
        http.json<void>(`/v1/knowledge-bases/${seg(name)}/documents/${seg(documentId)}`, { method: 'DELETE', signal: o.signal }),
      query: (
        name: string,
        body: { query: string; topK?: number; minScore?: number; filter?: Record<string, string | number | boolean> },
        o: CallOptions = {},
      ) => http.json<RetrieveAnswer>(`/v1/knowledge-bases/${seg(name)}/query`, { method: 'POST', body, signal: o.signal }),
    },

    schedules: {
      /** A workflow run on a cron (`timezone` default UTC, `overlap` default skip, `catchUp` default latest). */
      create: (body: NewScheduleRequest, o: CallOptions = {}) =>
        http.json<Schedule>('/v1/schedules', { method: 'POST', body, signal: o.signal }),
      list: (o: CallOptions = {}) => http.json<ScheduleList>('/v1/schedules', o),
      get: (scheduleId: string, o: CallOptions = {}) => http.json<Schedule>(`/v1/schedules/${seg(scheduleId)}`, o),
      firings: (scheduleId: string, o: CallOptions = {}) => http.json<ScheduleFirings>(`/v1/schedules/${seg(scheduleId)}/firings`, o),
      pause: (scheduleId: string, o: CallOptions = {}) =>
        http.json<Schedule>(`/v1/schedules/${seg(scheduleId)}/pause`, { method: 'POST', body: {}, signal: o.signal }),
      resume: (scheduleId: string, o: CallOptions = {}) =>
        http.json<Schedule>(`/v1/schedules/${seg(scheduleId)}/resume`, { method: 'POST', body: {}, signal: o.signal }),
      trigger: (scheduleId: string, o: CallOptions = {}) =>
        http.json<{ scheduleId: string; fireAt: string }>(`/v1/schedules/${seg(scheduleId)}/trigger`, {
          method: 'POST',
          body: {},
          signal: o.signal,
        }),
      delete: (scheduleId: string, o: CallOptions = {}) =>
        http.json<void>(`/v1/schedules/${seg(scheduleId)}`, { method: 'DELETE', signal: o.signal }),
    },

    runs: {
      /** Queues a run of the workflow: the `202` answer, with the `runId`. */
      start: (workflow: string, o: StartRunOptions = {}) =>
        http.json<RunAccepted>(`/v1/workflows/${seg(workflow)}/runs`, {
          method: 'POST',
          body: { input: o.input, state: o.state, parameters: o.parameters, version: o.version },
          headers: idempotency(o.idempotencyKey),
          signal: o.signal,
        }),
      list: (filter: RunListFilter & CallOptions = {}) => {
        const { signal, ...query } = filter;
        return http.json<RunList>('/v1/runs', { query: { ...query }, signal });
      },
      get: (runId: string, o: CallOptions = {}) => http.json<RunSummary>(`/v1/runs/${seg(runId)}`, o),
      trace: (runId: string, o: CallOptions = {}) => http.json<RunTrace>(`/v1/runs/${seg(runId)}/trace`, o),
      checkpoints: (runId: string, o: CallOptions = {}) => http.json<CheckpointList>(`/v1/runs/${seg(runId)}/checkpoints`, o),
      /** The run's fork tree: from its oldest recorded ancestor, depth first, each fork with the checkpoint it started at. */
      lineage: (runId: string, o: CallOptions = {}) => http.json<RunLineage>(`/v1/runs/${seg(runId)}/lineage`, o),
      /** `canceled`, or `cancel_requested` while its runner is stopping it. */
      cancel: (runId: string, o: CallOptions & { reason?: string } = {}) =>
        http.json<CancelOutcome>(`/v1/runs/${seg(runId)}/cancel`, { method: 'POST', body: { reason: o.reason }, signal: o.signal }),
      /** A new run from one of the run's checkpoints (its latest by default). */
      fork: (runId: string, body: ForkBody = {}, o: CallOptions & { idempotencyKey?: string } = {}) =>
        http.json<ForkAccepted>(`/v1/runs/${seg(runId)}/fork`, {
          method: 'POST',
          body,
          headers: idempotency(o.idempotencyKey),
          signal: o.signal,
        }),
      /** The run's log after `after` as JSON, each event checked against the run event schema. */
      events: (runId: string, o: CallOptions & { after?: number } = {}) => readRunEventsPage(http, runId, o.after ?? 0, o.signal),
      /** The run's events as they happen: each once, in order, across reconnects, until the run ends. */
      follow: (runId: string, o: FollowOptions = {}): AsyncGenerator<RunEvent, void> => followRun(http, runId, o),
      /** The requests for a person the run has made (answered or not). */
      requests: (runId: string, o: CallOptions = {}) => http.json<RunRequests>(`/v1/runs/${seg(runId)}/requests`, o),
      /** Scores the run (or one of its spans, `spanId`); with an `idempotencyKey`, a retry answers the stored score. */
      score: (runId: string, body: NewScoreBody, o: CallOptions & { idempotencyKey?: string } = {}) =>
        http.json<Score>(`/v1/runs/${seg(runId)}/scores`, {
          method: 'POST',
          body,
          headers: idempotency(o.idempotencyKey),
          signal: o.signal,
        }),
      /** The run's scores, oldest first. */
      scores: (runId: string, o: CallOptions = {}) => http.json<{ scores: Score[] }>(`/v1/runs/${seg(runId)}/scores`, o),
      /** What each of the run's evaluators made of it (a workflow evaluator's judge run and its cost). */
      evaluations: (runId: string, o: CallOptions = {}) =>
        http.json<{ evaluations: RunEvaluation[] }>(`/v1/runs/${seg(runId)}/evaluations`, o),
    },

    requests: {
      /** The tenant's requests for a person across runs (the inbox). */
      list: (filter: RequestListFilter & CallOptions = {}) => {
        const { signal, ...query } = filter;
        return http.json<RequestList>('/v1/requests', { query: { ...query }, signal });
      },
      /** Answers an input request or decides an approval; `recorded` resumes the run. */
      answer: (runId: string, requestId: string, body: AnswerBody, o: CallOptions = {}) =>
        http.json<AnswerOutcome>(`/v1/runs/${seg(runId)}/requests/${seg(requestId)}/respond`, {
          method: 'POST',
          body,
          signal: o.signal,
        }),
    },

    datasets: {
      list: (o: CallOptions = {}) => http.json<{ datasets: Dataset[] }>('/v1/datasets', o),
      /** Creates the dataset, or changes its description. */
      put: (name: string, body: { description?: string } = {}, o: CallOptions = {}) =>
        http.json<Dataset>(`/v1/datasets/${seg(name)}`, { method: 'PUT', body, signal: o.signal }),
      get: (name: string, o: CallOptions & { version?: number } = {}) =>
        http.json<Dataset>(`/v1/datasets/${seg(name)}`, { query: { version: o.version }, signal: o.signal }),
      delete: (name: string, o: CallOptions = {}) => http.json<void>(`/v1/datasets/${seg(name)}`, { method: 'DELETE', signal: o.signal }),
      /** Items written out or taken from runs: all of them one new version, or none. */
      addItems: (name: string, body: AddDatasetItemsBody, o: CallOptions = {}) =>
        http.json<DatasetItemsAdded>(`/v1/datasets/${seg(name)}/items`, { method: 'POST', body, signal: o.signal }),
      items: (name: string, o: CallOptions & { version?: number; limit?: number; cursor?: string } = {}) =>
        http.json<{ version: number; items: DatasetItem[]; nextCursor: string | null }>(`/v1/datasets/${seg(name)}/items`, {
          query: { version: o.version, limit: o.limit, cursor: o.cursor },
          signal: o.signal,
        }),
      removeItem: (name: string, itemId: string, o: CallOptions = {}) =>
        http.json<{ version: number }>(`/v1/datasets/${seg(name)}/items/${seg(itemId)}`, { method: 'DELETE', signal: o.signal }),
    },

    experiments: {
      /** Runs a dataset version through a workflow version; the dispatcher starts the items' runs. */
      start: (body: NewExperimentBody, o: CallOptions = {}) =>
        http.json<Experiment>('/v1/experiments', { method: 'POST', body, signal: o.signal }),
      list: (o: CallOptions = {}) => http.json<{ experiments: Experiment[] }>('/v1/experiments', o),
      get: (experimentId: string, o: CallOptions = {}) => http.json<Experiment>(`/v1/experiments/${seg(experimentId)}`, o),
      items: (experimentId: string, o: CallOptions = {}) =>
        http.json<{ items: ExperimentItem[] }>(`/v1/experiments/${seg(experimentId)}/items`, o),
      cancel: (experimentId: string, o: CallOptions = {}) =>
        http.json<Experiment>(`/v1/experiments/${seg(experimentId)}/cancel`, { method: 'POST', body: {}, signal: o.signal }),
      /** Two or more experiments over one dataset, item by item. */
      compare: (experimentIds: readonly string[], o: CallOptions = {}) =>
        http.json<ExperimentComparison>('/v1/experiments/compare', { query: { ids: experimentIds.join(',') }, signal: o.signal }),
      /** The comparison as CSV (an item a row). */
      compareCsv: (experimentIds: readonly string[], o: CallOptions = {}) =>
        http.text('/v1/experiments/compare', { query: { ids: experimentIds.join(','), format: 'csv' }, signal: o.signal }),
    },

    replays: {
      /** Replays recorded runs of `workflow` through a version; the dispatcher starts the replay runs. */
      start: (workflow: string, body: NewReplayBody, o: CallOptions = {}) =>
        http.json<Replay>(`/v1/workflows/${seg(workflow)}/replays`, { method: 'POST', body, signal: o.signal }),
      list: (o: CallOptions = {}) => http.json<{ replays: ReplayListItem[] }>('/v1/replays', o),
      /** The replay with each run's report, read from the logs as they are now. */
      get: (replayId: string, o: CallOptions = {}) => http.json<Replay>(`/v1/replays/${seg(replayId)}`, o),
    },

    keys: {
      /** The answer holds the key's secret, this once. */
      create: (body: NewKeyBody, o: CallOptions = {}) => http.json<CreatedKey>('/v1/keys', { method: 'POST', body, signal: o.signal }),
      list: (o: CallOptions & { tenant?: string } = {}) =>
        http.json<ApiKeyList>('/v1/keys', { query: { tenant: o.tenant }, signal: o.signal }),
      get: (keyId: string, o: CallOptions & { tenant?: string } = {}) =>
        http.json<ApiKeyView>(`/v1/keys/${seg(keyId)}`, { query: { tenant: o.tenant }, signal: o.signal }),
      revoke: (keyId: string, o: CallOptions & { tenant?: string } = {}) =>
        http.json<ApiKeyView>(`/v1/keys/${seg(keyId)}`, { method: 'DELETE', query: { tenant: o.tenant }, signal: o.signal }),
    },

    tenants: {
      list: (o: CallOptions = {}) => http.json<TenantList>('/v1/tenants', o),
      get: (tenantId: string, o: CallOptions = {}) => http.json<Tenant>(`/v1/tenants/${seg(tenantId)}`, o),
      create: (body: NewTenantBody, o: CallOptions = {}) => http.json<Tenant>('/v1/tenants', { method: 'POST', body, signal: o.signal }),
      setQuotas: (tenantId: string, quotas: TenantQuotas, o: CallOptions = {}) =>
        http.json<Tenant>(`/v1/tenants/${seg(tenantId)}/quotas`, { method: 'PUT', body: quotas, signal: o.signal }),
    },

    audit: {
      list: (filter: AuditFilter & CallOptions = {}) => {
        const { signal, ...query } = filter;
        return http.json<AuditPage>('/v1/audit', { query: { ...query }, signal });
      },
    },
  };
}
