import { z } from 'zod';
import { MAX_SEQ } from './decimal-integer';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Request headers some operations read, documented once. */
export const REQUEST_HEADERS = {
  'Idempotency-Key': {
    schema: z.string().regex(/^[\x21-\x7e]{1,255}$/),
    description: 'Makes a retried create safe: the same key and body answer with the run the first request opened.',
  },
  'Last-Event-ID': {
    schema: z.string().regex(/^(0|[1-9][0-9]{0,15})$/),
    description: `The seq of the last event received (0 to ${MAX_SEQ}): the stream resumes after it.`,
  },
} as const;
export type RequestHeaderName = keyof typeof REQUEST_HEADERS;

export interface HttpResponseSpec {
  readonly description: string;
  /** The `application/json` body. */
  readonly json?: z.ZodType;
  /** Also answers `text/event-stream` (the run's event frames) when the request accepts it. */
  readonly eventStream?: boolean;
  /** Also answers `text/event-stream` whose frames each carry one JSON-RPC message (MCP's streamable HTTP). */
  readonly jsonRpcStream?: boolean;
  /** Answers `text/event-stream` whose frames each carry one AG-UI event. */
  readonly agUiStream?: boolean;
  /** Answers the AI SDK's UI message stream (`text/event-stream`, one chunk per frame, `[DONE]` last). */
  readonly uiMessageStream?: boolean;
  /** Answers raw bytes of one of these media types (a file's content). */
  readonly binary?: readonly string[];
}

/** One documented operation; `path` is in the gateway's `:param` form. Problems (`default`) are added to every one. */
export interface HttpOperation {
  readonly operationId: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  /** Path parameters whose schema is not the one `pathParamSchemas` has under the same name. */
  readonly params?: Readonly<Record<string, z.ZodType>>;
  readonly query?: z.ZodObject;
  readonly headers?: readonly RequestHeaderName[];
  readonly body?: z.ZodType;
  /** The body is raw bytes of one of these media types, not JSON (a file upload). */
  readonly rawBody?: readonly string[];
  readonly responses: Readonly<Record<number, HttpResponseSpec>>;
}

/** A response with this description and, when given, this JSON body. */
export const ok = (description: string, json?: z.ZodType): HttpResponseSpec => ({ description, json });

/** Operations of one tag, written without repeating it. */
export const taggedAs =
  (tag: string) =>
  (o: Omit<HttpOperation, 'tag'>): HttpOperation => ({ ...o, tag });
