import type { BusNames } from '@spindle/contracts';
import { payloadBucketOf } from './run-payloads';
import { fileBucketOf } from './file-store';
import { capabilityBucketOf, capabilityStreamOf } from './capability-bucket';

export const SPINDLE_SERVICES = ['gateway', 'runner', 'trace-recorder', 'checkpoint', 'approval', 'dispatcher'] as const;
export type SpindleService = (typeof SPINDLE_SERVICES)[number];

export interface SubjectPermissions {
  publish: string[];
  subscribe: string[];
}

/**
 * What each service may publish and subscribe to on NATS: the single-writer rule made physical.
 * Only the documented writers of the run log may append to it: the runner; the gateway
 * (`run.queued`, a queued run's cancel, answers, forks); the dispatcher (the control plane:
 * it admits queued runs to the runners' queue, and appends `run.queued` for schedule firings
 * and threads' next runs); the approval service (request time-outs). The read models may only
 * read it and write their own dead letters. Nobody may
 * delete or purge a stream but the object store's own reply blobs, and the gateway a run's
 * subject of the log (`DELETE /v1/runs/{id}`, admins only).
 */
export function natsPermissions(names: BusNames): Record<SpindleService, SubjectPermissions> {
  const ns = names.namespace ? `${names.namespace}.` : '';
  const events = names.eventsWildcard;
  const commands = names.commandsWildcard;
  const payloads = payloadBucketOf(names);
  const streams = [names.eventsStream, names.commandsStream, names.deadLetterStream, `OBJ_${payloads}`];
  // Every service provisions the streams (idempotently), reads them through consumers, acks,
  // reads single messages, and keeps payloads and large query replies in the object store.
  const jetstream = [
    '$JS.API.INFO',
    ...streams.flatMap((s) => [
      `$JS.API.STREAM.INFO.${s}`,
      `$JS.API.STREAM.CREATE.${s}`,
      `$JS.API.STREAM.UPDATE.${s}`,
      `$JS.API.STREAM.MSG.GET.${s}`,
      `$JS.API.DIRECT.GET.${s}`,
    ]),
    // Consumers read and acknowledge; none of their operations changes what a stream holds.
    '$JS.API.CONSUMER.>',
    '$JS.ACK.>',
    `$O.${payloads}.>`,
    // Deleting a fetched reply blob purges its chunks.
    `$JS.API.STREAM.PURGE.OBJ_${payloads}`,
    // Readiness asks a full store whether it has room again with one tiny write (store-room.ts).
    names.deadLetterSubject('store-probe'),
  ];
  const replies = '_INBOX.>';
  const query = (service: string) => `${ns}svc.${service}.*`;
  // File bytes (uploads, documents): the gateway stores them, the runner and the dispatcher read
  // them, the dispatcher's collector deletes them; no read model touches them.
  const filesStream = `OBJ_${fileBucketOf(names)}`;
  const readFiles = [
    `$JS.API.STREAM.INFO.${filesStream}`,
    `$JS.API.STREAM.CREATE.${filesStream}`,
    `$JS.API.STREAM.UPDATE.${filesStream}`,
    `$JS.API.STREAM.MSG.GET.${filesStream}`,
    `$JS.API.DIRECT.GET.${filesStream}`,
  ];
  const writeFiles = [...readFiles, `$O.${fileBucketOf(names)}.>`, `$JS.API.STREAM.PURGE.${filesStream}`];
  // What runners can run (runner-capabilities.ts): each runner writes its own key (the users are per
  // service, so any runner could write any runner's key), the gateway reads them all through a consumer.
  const capabilityStream = capabilityStreamOf(names);
  const readCapabilities = [`$JS.API.STREAM.INFO.${capabilityStream}`];
  const announceCapabilities = [...readCapabilities, `$JS.API.STREAM.CREATE.${capabilityStream}`, `$KV.${capabilityBucketOf(names)}.*`];
  // The control side (the gateway, the dispatcher, the approval service): appends to run logs and queues commands.
  const runLogAndCommands = [...jetstream, replies, events, commands];
  const controls = `${ns}run.ctl.*`;
  return {
    gateway: {
      publish: [
        ...runLogAndCommands,
        controls,
        `${ns}mcp.ses.*`,
        `${ns}svc.*.*`,
        ...writeFiles,
        ...readCapabilities,
        // Erasing a run purges its subject of the log.
        `$JS.API.STREAM.PURGE.${names.eventsStream}`,
      ],
      subscribe: [replies, `${ns}run.tok.*`, `${ns}mcp.ses.*`],
    },
    runner: {
      publish: [
        ...jetstream,
        replies,
        events,
        `${ns}run.tok.*`,
        commands,
        names.deadLetterSubject('runner'),
        ...readFiles,
        ...announceCapabilities,
        query('checkpoint'),
        // A retrieve node's search of a knowledge base.
        `${ns}svc.dispatcher.retrieve`,
        // A command out of deliveries moves to the dead-letter stream and leaves the work queue.
        `$JS.API.STREAM.MSG.DELETE.${names.commandsStream}`,
      ],
      subscribe: [replies, controls, `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${names.commandsStream}.${names.durables.runners}`],
    },
    'trace-recorder': { publish: [...jetstream, replies, names.deadLetterSubject('trace-recorder')], subscribe: [replies, query('trace')] },
    checkpoint: { publish: [...jetstream, replies, names.deadLetterSubject('checkpoint')], subscribe: [replies, query('checkpoint')] },
    approval: {
      publish: [...runLogAndCommands, names.deadLetterSubject('approval')],
      subscribe: [replies, query('approval')],
    },
    dispatcher: {
      publish: [
        ...runLogAndCommands,
        // A schedule's overlap policy cancels the run still going.
        controls,
        query('checkpoint'),
        // Tenant usage for the quotas.
        query('trace'),
        names.deadLetterSubject('admission'),
        ...writeFiles,
      ],
      subscribe: [replies, query('dispatcher')],
    },
  };
}

/**
 * The `authorization` block of a nats-server configuration: one user per service with its
 * permissions. `password(service)` is written as given, so it may be a literal (tests) or a
 * `$VARIABLE` the server reads from its environment (deployments).
 */
export function natsAuthorizationConfig(
  names: BusNames,
  password: (service: SpindleService) => string,
  operators: ReadonlyArray<{ user: string; password: string }> = [],
): string {
  const permissions = natsPermissions(names);
  const list = (subjects: readonly string[]) => `[${subjects.map((s) => JSON.stringify(s)).join(', ')}]`;
  const users = SPINDLE_SERVICES.map((service) => {
    const p = permissions[service];
    const allowed = `permissions: { publish: { allow: ${list(p.publish)} }, subscribe: { allow: ${list(p.subscribe)} } }`;
    return `    { user: ${JSON.stringify(service)}, password: ${password(service)},\n      ${allowed} }`;
  });
  // People and tools with every permission (an operator's shell, a test driver): none in deployments.
  const admins = operators.map((o) => `    { user: ${JSON.stringify(o.user)}, password: ${o.password} }`);
  return `authorization {\n  users = [\n${[...users, ...admins].join(',\n')}\n  ]\n}\n`;
}

/** The environment variable a deployment's nats-server reads a service's password from. */
export function natsPasswordVariable(service: SpindleService): string {
  return `SPINDLE_NATS_${service.toUpperCase().replace('-', '_')}_PASSWORD`;
}

/** The committed `deploy/nats/spindle-authorization.conf`: passwords from the server's environment. */
export function natsAuthorizationFile(names: BusNames): string {
  return [
    '# Generated by scripts/nats-authorization.mjs from libs/bus/src/nats-permissions.ts: do not edit by hand.',
    '# One user per Spindle service; include it in the nats-server configuration and give the server',
    `# ${SPINDLE_SERVICES.map(natsPasswordVariable).join(', ')}.`,
    natsAuthorizationConfig(names, (s) => `$${natsPasswordVariable(s)}`),
  ].join('\n');
}
