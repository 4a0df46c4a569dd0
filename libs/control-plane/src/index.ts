// Admission: quotas, the fair admission of queued runs, and the control plane's projection of the log.
export { AdmissionRepository } from './admission/admission.repository';
export type { QueuedRun, TenantQueueRow } from './admission/admission.repository';
export { RunAdmission } from './admission/run-admission';
export type { QueuePosition } from './admission/run-admission';
export { StartQuotas } from './admission/start-quotas';
export type { QuotaDefaults, TenantQuotaSource } from './admission/quota-defaults';
export { queueForAdmission } from './admission/queue-for-admission';
export { registerQueueMetrics } from './admission/queue.metrics';
export { controlPlaneProjection } from './admission/control-plane.projection';
export { batchWakes } from './batch-wakes';
export type { BatchWakes } from './batch-wakes';
// Threads: the multitask plan, the next run, and their rows.
export { ACTIVE_STATUSES, RUNNING_STATUSES, isActive, planThreadStart, nextThreadRun } from './threads/thread-start-plan';
export type { StoredThreadRunStatus, ThreadRunSlot, ThreadStartPlan, NextThreadRun } from './threads/thread-start-plan';
export { ThreadRepository, threadRunView } from './threads/thread.repository';
export type { PendingRequest, ThreadRunRow } from './threads/thread.repository';
export { failedForGood } from './start-failure';
export type { StartFailure } from './start-failure';
// Schedules: the cron, the catch-up and overlap plans, the pass that fires them.
export { planFiring } from './schedules/firing-plan';
export type { FiringStep, ScheduleOverlap } from './schedules/firing-plan';
export { parseCron, dueFirings, MAX_CATCH_UP } from './schedules/cron-schedule';
export type { CatchUp } from './schedules/cron-schedule';
export { ScheduleRepository, scheduleView } from './schedules/schedule.repository';
export type { ScheduleRow } from './schedules/schedule.repository';
export { Scheduler } from './schedules/scheduler';
export type { RunStarts, RunCancels } from './run-ports';
export { ThreadDispatcher, slotOf } from './threads/thread-dispatcher';
// Webhooks: deliveries' next attempt, signing, the signed POST and the pass that delivers.
export { nextDeliveryOutcome, MAX_RETRY_DELAY_MS } from './webhooks/delivery-attempt';
export type { DeliveryOutcome, DeliveryRetryPolicy } from './webhooks/delivery-attempt';
export { WebhookRepository } from './webhooks/webhook.repository';
export type { DeliveryRow, DueDelivery } from './webhooks/webhook.repository';
export { WebhookDeliverer } from './webhooks/webhook-deliverer';
export type { WebhookDeliveryOptions } from './webhooks/webhook-deliverer';
export { newWebhookSecret } from './webhooks/webhook-secret';
export { postWebhook } from './webhooks/webhook-post';
export type { WebhookAnswer, WebhookPost } from './webhooks/webhook-post';
// Starts: the one way a run is started (checks, catalogs, idempotency key, quota, run.queued, admission), and the catalogs it reads.
export { RunStarter } from './starts/run-starter';
export type { RunStarterDeps, StartOptions, StartedRun } from './starts/run-starter';
export { checkIdempotencyKey, createOnce, requestHash } from './starts/idempotent-creation';
export type { Created } from './starts/idempotent-creation';
export { IdempotencyKeysRepository } from './starts/idempotency-keys.repository';
export { WorkflowCatalogRepository } from './catalogs/workflow-catalog.repository';
export { AgentCatalogRepository } from './catalogs/agent-catalog.repository';
export { resolveAgentRefs } from './catalogs/agent-refs.resolver';
export { resolveSubgraphs } from './catalogs/subgraph-resolver';
// What runners can run: the routes' listing and the save-time check against it.
export { capabilityRefusal } from './capabilities/capability-check';
export { listFunctions, listTools } from './capabilities/capability-listing';
// Tenants and their quotas, and the one way a run is canceled.
export { TenantsRepository } from './tenants/tenants.repository';
export { TenantDirectory } from './tenants/tenant-directory';
export { RunCanceller } from './runs/run-canceller';
export { missingCheckpointError } from './runs/missing-checkpoint';
export { parseControlPlaneSettings } from './control-plane.settings';
export type { ControlPlaneSettings, FileSettings, WebhookSettings } from './control-plane.settings';
// Files: uploads stored once by content, resolved into runs' references, kept while a run refers to them.
export { FileRepository, FileReferencesRepository } from './files/file.repository';
export type { FileRow } from './files/file.repository';
export { FileLibrary, storedFileView } from './files/file-library';
export type { Upload } from './files/file-library';
export { FileCollector } from './files/file-collector';
export { fileIdOf } from './files/file-id';
export { fileRefsOf, fileRefsIn } from './files/file-refs-of';
export { resolveFileParts, filePartsIn, withFileRefs, MAX_FILE_PARTS } from './files/file-parts.resolver';
export type { FileLookup, FilePartAt, StoredFileRef } from './files/file-parts.resolver';
export { FileReferenceProjection } from './files/file-reference.projection';
export { EvaluationProjection } from './evaluations/evaluation.projection';
export { EvaluationRepository } from './evaluations/evaluation.repository';
export type { DueEvaluation } from './evaluations/evaluation.repository';
export { EvaluationWorker } from './evaluations/evaluation-worker';
export { DatasetRepository } from './datasets/dataset.repository';
export type { StoredItemDraft } from './datasets/dataset.repository';
export { DEFAULT_MAX_DATASET_ITEM_BYTES, draftItems, runForItemFromLog } from './datasets/dataset-items';
export type { RunForItem, RunForItemReader } from './datasets/dataset-items';
export { ExperimentRepository } from './experiments/experiment.repository';
export type { NewExperiment } from './experiments/experiment.repository';
export { ExperimentRunner } from './experiments/experiment-runner';
export { experimentSummary, judgeItem, nextExperimentStep } from './experiments/experiment-plan';
export type { ExperimentProgress, ExperimentStep } from './experiments/experiment-plan';
export { comparisonCsv, compareExperiments } from './experiments/experiment-comparison';
export { ReplayRepository } from './replays/replay.repository';
export type { NewReplay, StoredReplay } from './replays/replay.repository';
export { ReplayRunner } from './replays/replay-runner';
export { replayWithReports } from './replays/replay-reports';
export { requireReplayable, replayStartBody } from './replays/replay-sources';
