import { z } from 'zod';
import { JSON_RPC_ERROR } from './json-rpc';

/**
 * The Agent2Agent protocol's JSON-RPC binding (A2A 0.3): the messages, tasks and updates a
 * workflow's agent endpoint takes and answers. Each workflow is an agent; each task is a run.
 */
export const A2A_PROTOCOL_VERSION = '0.3.0';

/** JSON-RPC error codes: the standard ones and A2A's own. */
export const A2A_ERROR = {
  ...JSON_RPC_ERROR,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotificationNotSupported: -32003,
  unsupportedOperation: -32004,
} as const;

const metadata = z.record(z.string(), z.unknown()).optional();

export const a2aPartSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string(), metadata }),
  z.object({ kind: z.literal('data'), data: z.record(z.string(), z.unknown()), metadata }),
  z.object({ kind: z.literal('file'), file: z.record(z.string(), z.unknown()), metadata }),
]);
export type A2aPart = z.infer<typeof a2aPartSchema>;

export const a2aMessageSchema = z.object({
  kind: z.literal('message'),
  messageId: z.string().min(1).max(256),
  role: z.enum(['user', 'agent']),
  parts: z.array(a2aPartSchema).min(1).max(64),
  taskId: z.string().max(256).optional(),
  contextId: z.string().max(256).optional(),
  referenceTaskIds: z.array(z.string()).max(64).optional(),
  extensions: z.array(z.string()).max(64).optional(),
  metadata,
});
export type A2aMessage = z.infer<typeof a2aMessageSchema>;

/** `message/send` and `message/stream`. */
export const a2aMessageSendParamsSchema = z.object({
  message: a2aMessageSchema,
  configuration: z
    .looseObject({
      /** `false`: answer at once with the task as it stands; otherwise when it ends or needs input. */
      blocking: z.boolean().optional(),
      historyLength: z.number().int().nonnegative().optional(),
      acceptedOutputModes: z.array(z.string()).optional(),
    })
    .optional(),
  metadata,
});
export type A2aMessageSendParams = z.infer<typeof a2aMessageSendParamsSchema>;

/** `tasks/get` and `tasks/cancel`. */
export const a2aTaskIdParamsSchema = z.object({
  id: z.string().min(1).max(256),
  historyLength: z.number().int().nonnegative().optional(),
  metadata,
});

export type A2aTaskState = 'submitted' | 'working' | 'input-required' | 'completed' | 'canceled' | 'failed';

export interface A2aTaskStatus {
  state: A2aTaskState;
  message?: A2aMessage;
  timestamp: string;
}

export interface A2aArtifact {
  artifactId: string;
  name?: string;
  parts: A2aPart[];
}

export interface A2aTask {
  kind: 'task';
  id: string;
  contextId: string;
  status: A2aTaskStatus;
  artifacts?: A2aArtifact[];
  metadata?: Record<string, unknown>;
}

export interface A2aStatusUpdate {
  kind: 'status-update';
  taskId: string;
  contextId: string;
  status: A2aTaskStatus;
  /** The last update of this stream: the task ended or needs input. */
  final: boolean;
}

export interface A2aArtifactUpdate {
  kind: 'artifact-update';
  taskId: string;
  contextId: string;
  artifact: A2aArtifact;
  lastChunk: boolean;
}

/** Final states (the task will not change again) and the interrupted one (it waits for a message). */
export const A2A_FINAL_STATES: ReadonlySet<A2aTaskState> = new Set(['completed', 'canceled', 'failed', 'input-required']);
