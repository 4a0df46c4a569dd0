export { resolveTestInfra, reachable, testNamespace, testEnv } from './test-infra';
export type { TestInfra } from './test-infra';
export { FakeOpenAIServer } from './fake-openai-server';
export type { FakeOpenAIReply, FakeOpenAIRequestBody, FakeOpenAIToolCall } from './fake-openai-server';
export { FakeAnthropicServer } from './fake-anthropic-server';
export type { FakeAnthropicReply, FakeAnthropicRequestBody } from './fake-anthropic-server';
export { BACKGROUND_SERVICES, readsControlPlaneSettings, startStack, stopProcess } from './service-stack';
export type { Stack, StackOptions, ServiceProcess } from './service-stack';
export { readSse } from './sse-client';
export type { SseFrame } from './sse-client';
export { runLogArbitrary, withRunId, ARBITRARY_RUN_ID } from './run-log-generator';
export type { RunLogConstraints } from './run-log-generator';
export { referenceFold, traceView } from './reference-fold';
export type { ReferenceTrace, ReferenceRun, ReferenceSpan, ReferenceFoldOptions } from './reference-fold';
export { describeProjectionConformance, messagesOf, newSettlement, deliveryArb, schedule } from './projection-conformance';
export type { ProjectionUnderTest, Settlement, Delivery } from './projection-conformance';
export { eventually, testBus, removeStreams, openTestSchema, providerGate } from './test-helpers';
export { startNatsServer, hasNatsServerBinary, natsServerBinary } from './nats-server-process';
export type { NatsServerProcess, NatsServerOptions } from './nats-server-process';
export { freePort } from './free-port';
export { recordFigures, recordedFigures } from './figures';
export { startOidcIssuer, type LocalOidcIssuer, type OidcTestClaims, type OidcIssueOptions, type OidcLoginUser } from './oidc-issuer';
export { readExamples, exampleFileSchema, type Example, type ExampleAnswer, type ExampleExpectation } from './examples/example-file';
export { runExample, type ExampleOutcome } from './examples/run-example';
export {
  readExperimentExamples,
  runExperimentExample,
  type ExperimentExample,
  type ExperimentExampleOutcome,
} from './examples/experiment-example';
export { httpUploader, inputWithFiles, mediaTypeOf, type UploadFile } from './examples/example-files';
export { cliDeployer, CLI_BIN, type DeployModule } from './examples/deploy-module';
export { OpenApiConformance, conformanceReport } from './openapi-conformance';
export type { RecordedResponse, ConformanceMismatch, OpenApiDocument } from './openapi-conformance';
export { readmeExamples, SKIP_RULES, type ReadmeExample, type ReadmeAnswer } from './readme/readme-examples';
export { answerMismatches } from './readme/readme-answer';
export { AnswerBindings, VOLATILE_MEMBERS } from './readme/answer-bindings';
export { ShellSession, type ShellResult } from './readme/shell-session';
export { metricValue } from './prometheus-text';
export { OtlpCollector } from './otlp-collector';
export type { CollectedSpan } from './otlp-collector';
export { rowsOfStack } from './stack-tables';
export { chromiumMissing, launchChromium, pageShows, signInWithKey, longLoopWorkflow } from './browser';
export { startOwnPostgres, type OwnPostgres } from './own-postgres';
