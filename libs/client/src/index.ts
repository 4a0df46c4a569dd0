export { createSpindleClient } from './spindle-client';
export type { SpindleClient, StartRunOptions, CallOptions } from './spindle-client';
export type { SpindleClientOptions } from './http-transport';
export type { FollowOptions, StreamToken } from './run-follower';
export { SpindleApiError, SpindleUnreachableError, SpindleProtocolError, isSpindleApiError } from './spindle-errors';
export type { ApiErrorCode, Problem } from './spindle-errors';
export { createSseParser } from './sse-parser';
export type { SseMessage, SseParser } from './sse-parser';
export type * from './api-types';
