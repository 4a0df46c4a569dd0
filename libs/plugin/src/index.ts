export { defineFunction, defineTool, defineRetriever, definePlugin } from './define';
export type {
  ArgsOf,
  CallPolicy,
  FunctionDefinition,
  JsonSchema,
  PlainFunction,
  PluginModule,
  ResultOf,
  RetrievalRequest,
  RetrieverContext,
  RetrieverDefinition,
  RetryPolicy,
  Schema,
  ToolDefinition,
} from './define';
export type { FunctionContext, ToolContext, UsageReport } from './plugin-context';
export { PublicError } from './public-error';
export type { StandardSchemaV1 } from './standard-schema';
