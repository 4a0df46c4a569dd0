export { resolveTestInfra, reachable, testNamespace, testEnv } from './test-infra';
export type { TestInfra } from './test-infra';
export { FakeOpenAIServer } from './fake-openai-server';
export type { FakeOpenAIReply } from './fake-openai-server';
