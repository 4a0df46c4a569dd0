import { z } from 'zod';
import { tokenDeltaSchema } from '../run-commands';
import { runEventSchemas, runEventTypes } from '../run-events';

/**
 * The frames of a run's `text/event-stream`: each run event as `id: <seq>`, `event: <type>`,
 * `data: <the event as JSON>`; model tokens as `event: token` (no id: they are not in the log,
 * and a reconnect does not replay them); `event: error` when the stream broke off (reconnect
 * with `Last-Event-ID`). Comment lines (`: heartbeat`) keep idle connections open.
 */
export const tokenFrameSchema = tokenDeltaSchema.pick({ runId: true, nodeId: true, spanId: true, index: true, delta: true, part: true });
export type TokenFrame = z.infer<typeof tokenFrameSchema>;

export const streamErrorFrameSchema = z.object({ code: z.string(), detail: z.string() });

export interface StreamFrame {
  /** The SSE `event:` field. */
  readonly event: string;
  /** Whether the frame carries `id:` (the event's seq). */
  readonly hasId: boolean;
  readonly data: z.ZodType;
  readonly description: string;
}

export const RUN_STREAM_FRAMES: readonly StreamFrame[] = [
  ...runEventTypes.map((type) => ({
    event: type,
    hasId: true,
    data: runEventSchemas[type] as z.ZodType,
    description: `The run event \`${type}\`; \`id\` is its seq.`,
  })),
  {
    event: 'token',
    hasId: false,
    data: tokenFrameSchema,
    description: 'A chunk of model output, live only (not in the log, not replayed).',
  },
  { event: 'error', hasId: false, data: streamErrorFrameSchema, description: 'The stream broke off; reconnect with Last-Event-ID.' },
];
