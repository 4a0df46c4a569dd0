export { connectBus, isBusClosed, onReconnect, pingJetStream } from './bus-connection';
export type { Bus, BusOptions, BusAuth, BusTls } from './bus-connection';
export { provisionStreams, deleteStreams, isNotFound } from './provision-streams';
export { StreamGuard } from './stream-guard';
export type { StreamGuardOptions } from './stream-guard';
export type { StreamProvisioning } from './provision-streams';
export { RunLogWriter, EMPTY_LOG, DEFAULT_MAX_RUN_LOG_BYTES, MESSAGE_COUNT_HEADER } from './run-log.writer';
export type { LogPosition, RunLogWriterOptions } from './run-log.writer';
export { firstEventOf, lastEventOf, readRunLog, followRunLog, runTraceHeaders } from './run-log.reader';
export type { RunLogEnd, RunLogTail, RunLogFollower, FollowOptions, ReadOptions, SkippedMessage } from './run-log.reader';
export { decodeRunMessage } from './run-event.decoder';
export type { DecodedRunMessage, DecodeFailure } from './run-event.decoder';
export { RunLogCursor } from './run-log-invariants';
export type { LogCursorState, InvariantBreach } from './run-log-invariants';
export { isBusFault, asBusFault, retryBusFaults } from './bus-faults';
export { isStoreFull, storeRoom, checkStoreRoom, watchStoreRoom, STORE_FULL_RETRY_AFTER_SEC } from './store-room';
export type { BusRetry } from './bus-faults';
export { ensureDurable, pullBatches, deleteDurable, durableBacklog } from './durable-consumer';
export { watchConsumerLag, watchJetStreamCapacity } from './consumer-lag.metrics';
export type { DurableSpec } from './durable-consumer';
export { deadLetter, deadLetterStored } from './dead-letter';
export { deadLetterExhaustedDeliveries } from './exhausted-deliveries';
export type { ExhaustedDeliveriesOptions } from './exhausted-deliveries';
export {
  publishTokenDelta,
  subscribeTokenDeltas,
  publishRunControl,
  subscribeRunControl,
  publishMcpSessionMessage,
  subscribeMcpSession,
} from './run-live-channels';
export type { LiveSubscription, LiveHandlers } from './run-live-channels';
// The message and consumer types the bus hands to its users, so they need not import NATS.
export type { Consumer, JsMsg } from '@nats-io/jetstream';
export type { Subscription } from '@nats-io/transport-node';
export { serveQueries, query } from './query-rpc';
export type { QueryHandlers } from './query-rpc';
export { publishRunCommand } from './run-commands.publisher';
export { DEFAULT_MAX_EVENT_BYTES, encodeLargeEvent, resolvePayload, openPayloadStore } from './run-payloads';
export { appendToWaitingRun } from './run-answers';
export {
  natsPermissions,
  natsAuthorizationConfig,
  natsAuthorizationFile,
  natsPasswordVariable,
  SPINDLE_SERVICES,
} from './nats-permissions';
export type { SpindleService, SubjectPermissions } from './nats-permissions';
export { parseMessageJson } from './message-json';
export { maskSecretFieldsOf, secretFieldsOfDefinition } from './run-event-secrets';
export { purgeRunLog } from './run-erasure';
export { fileBucketOf, openFileStore, forgetFileStore, putFileBytes, readFileBytes, deleteFileBytes, fileSha256 } from './file-store';
export { announceCapabilities, withdrawCapabilities, readRunnerCapabilities } from './runner-capabilities';
export { capabilityBucketOf, capabilityKeyOf } from './capability-bucket';
export type { AnnounceOptions, SkippedCapabilities } from './runner-capabilities';
export { EventsTail, type TailJoin, type TailRoute } from './events-tail';
