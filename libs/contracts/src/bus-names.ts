import { assertRunId } from './run-id';

/**
 * Stream, subject and durable names. A namespace (tests, side-by-side stacks) prefixes every
 * subject and stream so two namespaces never see each other's messages.
 */
export interface BusNames {
  readonly namespace: string;
  readonly eventsStream: string;
  readonly eventsWildcard: string;
  eventSubject(runId: string): string;
  runIdFromEventSubject(subject: string): string | undefined;
  readonly commandsStream: string;
  readonly commandsWildcard: string;
  readonly startCommand: string;
  readonly deadLetterStream: string;
  deadLetterSubject(service: string): string;
  tokenSubject(runId: string): string;
  /** Core NATS control messages (cancel) to whichever runner holds the run. */
  controlSubject(runId: string): string;
  /**
   * Core NATS: what an MCP client sends about its calls in flight (answers to the server's
   * requests, cancellations), to whichever gateway holds the call. `sessionKey` is a hex digest.
   */
  mcpSessionSubject(sessionKey: string): string;
  querySubject(service: QueryService, op: string): string;
  readonly durables: {
    readonly runners: string;
    readonly traceRecorder: string;
    readonly checkpoint: string;
    readonly approval: string;
    /** The dispatcher's control-plane projection (admission, threads, webhooks); its name predates the dispatcher. */
    readonly admission: string;
  };
}

export type QueryService = 'trace' | 'checkpoint' | 'approval' | 'dispatcher';

const NAMESPACE_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;
const SESSION_KEY_PATTERN = /^[0-9a-f]{32,64}$/;

/** A subject token must not carry a dot or a wildcard: a session key is a hex digest and nothing else. */
function assertSessionKey(key: string): string {
  if (!SESSION_KEY_PATTERN.test(key)) throw new Error(`an MCP session key is 32 to 64 hex digits (got "${key.slice(0, 80)}")`);
  return key;
}

export function busNames(namespace = ''): BusNames {
  if (namespace !== '' && !NAMESPACE_PATTERN.test(namespace)) {
    throw new Error(`namespace must match ${NAMESPACE_PATTERN} (got "${namespace}")`);
  }
  const s = namespace ? `${namespace}.` : '';
  const S = namespace ? `${namespace.toUpperCase()}_` : '';
  const evPrefix = `${s}run.ev.`;
  return {
    namespace,
    eventsStream: `${S}RUN_EVENTS`,
    eventsWildcard: `${evPrefix}>`,
    eventSubject: (runId) => `${evPrefix}${assertRunId(runId)}`,
    runIdFromEventSubject: (subject) => (subject.startsWith(evPrefix) ? subject.slice(evPrefix.length) : undefined),
    commandsStream: `${S}RUN_COMMANDS`,
    commandsWildcard: `${s}run.cmd.*`,
    startCommand: `${s}run.cmd.start`,
    deadLetterStream: `${S}DEAD_LETTERS`,
    deadLetterSubject: (service) => `${s}dlq.${service}`,
    tokenSubject: (runId) => `${s}run.tok.${assertRunId(runId)}`,
    controlSubject: (runId) => `${s}run.ctl.${assertRunId(runId)}`,
    mcpSessionSubject: (sessionKey) => `${s}mcp.ses.${assertSessionKey(sessionKey)}`,
    querySubject: (service, op) => `${s}svc.${service}.${op}`,
    durables: {
      runners: 'runners',
      traceRecorder: 'trace-recorder',
      checkpoint: 'checkpoint',
      approval: 'approval',
      admission: 'admission',
    },
  };
}
