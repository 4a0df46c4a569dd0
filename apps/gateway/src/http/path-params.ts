import type { PipeTransform } from '@nestjs/common';
import {
  DATASET_ITEM_ID_PATTERN,
  DATASET_NAME_PATTERN,
  EXPERIMENT_ID_PATTERN,
  REPLAY_ID_PATTERN,
  SCORE_NAME_PATTERN,
  DOCUMENT_ID_PATTERN,
  AGENT_NAME_PATTERN,
  CHAT_ID_PATTERN,
  isReservedName,
  MAX_VERSION,
  parseDecimalInteger,
  reservedNameMessage,
  RUN_ID_PATTERN,
  SpindleError,
  TENANT_ID_PATTERN,
  THREAD_ID_PATTERN,
  WEBHOOK_ID_PATTERN,
  SCHEDULE_ID_PATTERN,
  FILE_ID_PATTERN,
  WORKFLOW_NAME_PATTERN,
  type ErrorCode,
} from '@spindle/contracts';
import { API_KEY_ID_PATTERN } from '@spindle/identity';

/**
 * Run, request and checkpoint ids: ULIDs, `req_<ULID>`, `cp-<n>`. All fit the run id pattern:
 * safe as a NATS subject token and in Postgres text (no NUL, no dots, no wildcards).
 */
export const RUN_ID = RUN_ID_PATTERN;
export const REQUEST_ID = RUN_ID_PATTERN;
export const CHECKPOINT_ID = RUN_ID_PATTERN;
export const WORKFLOW_NAME = WORKFLOW_NAME_PATTERN;
export const AGENT_NAME = AGENT_NAME_PATTERN;

/** A path value quoted for a message: JSON escapes control characters, and it is cut short. */
export const quoted = (value: string): string => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);

/**
 * Checks one path parameter before the handler runs, so no value that could not name anything
 * reaches NATS or Postgres. The rule (docs/architecture.md): looking something up by a value that
 * cannot exist is the route's own "not found"; naming something to create with one is
 * `validation_failed` naming the parameter.
 */
class PathParam implements PipeTransform<unknown, string> {
  constructor(
    private readonly pattern: RegExp,
    private readonly refuse: (value: string) => SpindleError,
  ) {}

  transform(value: unknown): string {
    // A prototype key could only ever find what every object inherits: never a name.
    if (typeof value === 'string' && this.pattern.test(value) && !isReservedName(value)) return value;
    throw this.refuse(String(value));
  }
}

const notFound = (code: ErrorCode, what: string) => (value: string) => new SpindleError(code, `no ${what} ${quoted(value)}`);
const invalid = (field: string, rule: string) => (value: string) => {
  const message = isReservedName(value) ? reservedNameMessage(value) : rule;
  return new SpindleError('validation_failed', `${field} ${quoted(value)}: ${message}`, { issues: [{ field, message }] });
};

export const RunIdParam = new PathParam(RUN_ID, notFound('run_not_found', 'run with id'));
export const RequestIdParam = new PathParam(REQUEST_ID, notFound('request_not_found', 'request with id'));
export const WorkflowNameParam = new PathParam(WORKFLOW_NAME, notFound('workflow_not_found', 'workflow named'));
export const AgentNameParam = new PathParam(AGENT_NAME, notFound('not_found', 'agent named'));
/** For `PUT`: the name is what is being created. */
export const NewWorkflowNameParam = new PathParam(
  WORKFLOW_NAME,
  invalid('name', 'a workflow name is 1-63 lower-case letters, digits, _ or -, starting with a letter or digit'),
);
export const NewAgentNameParam = new PathParam(
  AGENT_NAME,
  invalid('name', 'an agent name is an identifier (letters, digits, _; at most 64)'),
);
export const ThreadIdParam = new PathParam(THREAD_ID_PATTERN, notFound('thread_not_found', 'thread with id'));
/** A chat nobody started is not found either: it has no answer in progress. */
export const ChatIdParam = new PathParam(CHAT_ID_PATTERN, notFound('not_found', 'chat with id'));
export const WebhookIdParam = new PathParam(WEBHOOK_ID_PATTERN, notFound('not_found', 'webhook with id'));
export const ScheduleIdParam = new PathParam(SCHEDULE_ID_PATTERN, notFound('not_found', 'schedule with id'));
export const KeyIdParam = new PathParam(API_KEY_ID_PATTERN, notFound('not_found', 'API key with id'));
const KNOWLEDGE_BASE_NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
export const KnowledgeBaseNameParam = new PathParam(KNOWLEDGE_BASE_NAME, notFound('knowledge_base_not_found', 'knowledge base named'));
export const NewKnowledgeBaseNameParam = new PathParam(
  KNOWLEDGE_BASE_NAME,
  invalid('name', 'a knowledge base name is 1-64 lower-case letters, digits, _ . or -, starting with a letter or digit'),
);
export const DocumentIdParam = new PathParam(DOCUMENT_ID_PATTERN, notFound('not_found', 'document with id'));
export const TenantIdParam = new PathParam(TENANT_ID_PATTERN, notFound('not_found', 'tenant'));

/** A version in a path: a plain decimal integer from 1; anything else names no version (404). */
export const VersionParam: PipeTransform<unknown, number> = {
  transform(value: unknown): number {
    const version = typeof value === 'string' ? parseDecimalInteger(value, { min: 1, max: MAX_VERSION }) : undefined;
    if (version === undefined) throw new SpindleError('version_not_found', `no version ${quoted(String(value))}`);
    return version;
  },
};
export const FileIdParam = new PathParam(FILE_ID_PATTERN, notFound('file_not_found', 'file with id'));
export const DatasetNameParam = new PathParam(DATASET_NAME_PATTERN, notFound('dataset_not_found', 'dataset named'));
export const NewDatasetNameParam = new PathParam(
  DATASET_NAME_PATTERN,
  invalid('name', 'a dataset name is 1-64 lower-case letters, digits, _ or -, starting with a letter or digit'),
);
export const ExperimentIdParam = new PathParam(EXPERIMENT_ID_PATTERN, notFound('not_found', 'experiment with id'));
export const ScoreNameParam = new PathParam(SCORE_NAME_PATTERN, notFound('not_found', 'score config named'));
export const NewScoreNameParam = new PathParam(
  SCORE_NAME_PATTERN,
  invalid('name', 'a score name is lower-case letters, digits, `_`, `.` or `-`, starting with a letter (at most 64)'),
);
export const ReplayIdParam = new PathParam(REPLAY_ID_PATTERN, notFound('not_found', 'replay with id'));
export const DatasetItemIdParam = new PathParam(DATASET_ITEM_ID_PATTERN, notFound('dataset_not_found', 'dataset item with id'));
