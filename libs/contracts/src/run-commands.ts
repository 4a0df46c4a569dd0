import { z } from 'zod';
import { runIdSchema } from './run-id';
import { actorSchema } from './identity';

/** Commands to the runners, carried on the work-queue stream `RUN_COMMANDS`. */
export const runCommandSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('run.start'), runId: runIdSchema, issuedAt: z.iso.datetime({ offset: true }) }),
  /** Continue a waiting run: an answer (or a request's time limit) was appended at `afterSeq`. */
  z.object({
    type: z.literal('run.resume'),
    runId: runIdSchema,
    afterSeq: z.number().int().positive(),
    issuedAt: z.iso.datetime({ offset: true }),
  }),
]);
export type RunCommand = z.infer<typeof runCommandSchema>;

/** Control messages to the runner executing a run, on core NATS `run.ctl.<runId>`. */
export const runControlSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('cancel'),
    reason: z.string().max(500).optional(),
    requestedAt: z.iso.datetime({ offset: true }),
    /** Who asked: the runner records it in `run.canceled`. */
    canceledBy: actorSchema.optional(),
  }),
]);
export type RunControl = z.infer<typeof runControlSchema>;

/** The kinds of streamed model output: the answer, and the reasoning that some models show before it. */
export const tokenPartSchema = z.enum(['text', 'reasoning']);
export type TokenPart = z.infer<typeof tokenPartSchema>;

/** Token deltas of a streaming model call, on core NATS; not part of the log. */
export const tokenDeltaSchema = z.object({
  runId: runIdSchema,
  nodeId: z.string(),
  /** The node span the tokens belong to. */
  spanId: z.string(),
  /** `seq` of that node's `node.started`: a reader forwards the delta only after it. */
  afterSeq: z.number().int().positive(),
  /** Position of this chunk in the node's token stream, from 0. */
  index: z.number().int().nonnegative(),
  delta: z.string(),
  /** What the chunk is of: the answer's text (absent: text, as runners before it sent) or the model's reasoning. */
  part: tokenPartSchema.optional(),
  /**
   * `seq` of the call's `model.started`, and the chunk's position among that call's chunks from 0:
   * a reader that missed a chunk (or joined mid-call) knows, and takes the rest from the log.
   */
  callSeq: z.number().int().positive().optional(),
  callIndex: z.number().int().nonnegative().optional(),
});
export type TokenDelta = z.infer<typeof tokenDeltaSchema>;
