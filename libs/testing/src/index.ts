export { resolveTestInfra, reachable, testNamespace, testEnv } from './test-infra';
export type { TestInfra } from './test-infra';
export { FakeOpenAIServer } from './fake-openai-server';
export type { FakeOpenAIReply, FakeOpenAIToolCall } from './fake-openai-server';
export { startStack, stopProcess } from './service-stack';
export type { Stack, StackOptions, ServiceProcess } from './service-stack';
export { readSse } from './sse-client';
export type { SseFrame } from './sse-client';
