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
  querySubject(service: QueryService, op: string): string;
  readonly durables: {
    readonly runners: string;
    readonly traceRecorder: string;
    readonly checkpoint: string;
    readonly approval: string;
    /** The gateway's admission projection (which runs wait, which run). */
    readonly admission: string;
  };
}

export type QueryService = 'trace' | 'checkpoint' | 'approval';

const NAMESPACE_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;

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
