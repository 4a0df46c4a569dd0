export type {
  ChatMessage,
  ModelRequest,
  ModelResult,
  ModelPort,
  RegisteredFunction,
  FunctionContext,
  FunctionRegistry,
  RunLogPort,
  TokenSink,
  Clock,
  IdSource,
  ToolSpec,
  ToolCall,
  ToolContext,
  ToolPort,
  RetrieverPort,
  RetrievalRequest,
  RetrievalAnswer,
  UserCodeVoice,
  AttemptFailure,
} from './ports';
export { checkCustomEvent, checkUsageReport } from './executors/user-code-reports';
export type { UsageReport, CheckedUsageReport } from './executors/user-code-reports';
export { workflowDefinitionSchema, graphDefinitionSchema, nodeTypes, handlesOf } from './definition/workflow-definition.schema';
export { nodeSchema, edgeSchema } from './definition/node.schemas';
export type {
  WorkflowDefinition,
  WorkflowDefinitionInput,
  GraphDefinition,
  WorkflowNode,
  NodeType,
  NodeOf,
  Edge,
  SetNode,
  LlmNode,
  ConditionNode,
  FunctionNode,
  AgentNode,
  ToolNode,
  RouterNode,
  AppendNode,
  FailNode,
  Budget,
} from './definition/workflow-definition.schema';
export { validateDefinition, entryNodeId } from './definition/validate-definition';
export { namedCapabilities } from './definition/named-capabilities';
export type { NamedCapability } from './definition/named-capabilities';
export { describeGraph } from './definition/describe-graph';
export type { GraphView, NestedIn } from './definition/describe-graph';
export { renderTemplate, renderValue, MAX_RENDERED_SIZE, MAX_TEMPLATE_DEPTH } from './interpreter/render-template';
export { evaluateCondition } from './expressions/cel-expression';
export {
  MAX_EXPRESSION_LENGTH,
  MAX_EXPRESSION_NODES,
  MAX_EXPRESSION_DEPTH,
  MAX_EXPRESSION_LITERAL_ENTRIES,
  MAX_EXPRESSION_CALL_ARGUMENTS,
  MAX_COMPREHENSION_NESTING,
  MAX_DURATION_TEXT_LENGTH,
  MAX_EXPRESSION_STEPS,
} from './expressions/expression-limits';
export { MAX_REGEX_PATTERN_LENGTH, MAX_REGEX_PROGRAM_SIZE, MAX_REGEX_WORK } from './expressions/linear-regex';
export {
  MAX_JSON_SCHEMA_NODES,
  MAX_JSON_SCHEMA_DEPTH,
  MAX_JSON_SCHEMA_PATTERN_CHARACTERS,
  MAX_DEFINITION_SCHEMA_NODES,
} from './definition/json-schema-limits';
export { executeRun } from './interpreter/execute-run';
export type { RunStart, RunOutcome } from './interpreter/execute-run';
export type { RunEnvironment } from './interpreter/run-environment';
export { applyDelta } from './interpreter/state';
export type { RunState } from './interpreter/state';
export { compileJsonSchema, jsonSchemaProblem } from './definition/json-schema';
export type { JsonSchemaCheck } from './definition/json-schema';
export { toGraph, compilePattern } from './patterns/compile-pattern';
export {
  agentSpecSchema,
  agentBodySchema,
  sequentialPatternSchema,
  concurrentPatternSchema,
  handoffPatternSchema,
  groupChatPatternSchema,
  magenticPatternSchema,
} from './patterns/pattern-definition.schema';
export type {
  AgentSpec,
  PatternDefinition,
  SequentialPattern,
  ConcurrentPattern,
  HandoffPattern,
  GroupChatPattern,
  MagenticPattern,
} from './patterns/pattern-definition.schema';
export { handoffToolName, isHandoffTool } from './definition/handoff-names';
export { SCRIPTED_MODEL, modelScriptSchema } from './definition/model-script.schema';
export type { ModelScript, ScriptTurn, ScriptToolCall } from './definition/model-script.schema';
export { subgraphRef, subgraphRefs } from './definition/subgraph-refs';
export { RunHistory } from './interpreter/run-history';
export { graphStructureHash } from './definition/graph-structure';
export { toolArgumentsHash } from './executors/tool-approval';
export { messageHash } from './hashing/message-hash';
export { assertModelTakes, describeAccepts, modelMediaTypes, modelTakesMediaType } from './definition/model-media-types';
export { fileRefsIn } from './executors/attachments';
export { checkHumanAnswer } from './executors/human-answer';
export type { AnswerCheck } from './executors/human-answer';
export type { NodeResultStore, StoredNodeResult } from './ports';
export type { HumanNode } from './definition/workflow-definition.schema';
export { diffVersions, MAX_TEXT_DIFF_EDITS } from './versions/version-diff';
export { countTokens, encodeText, decodeTokens, messageTokens, promptTokens, TOKEN_ENCODING } from './context/tokens';
export { assemblePrompt, reapplyCuts } from './context/assemble-prompt';
export type { AssembledPrompt, ContextCut, PromptInput } from './context/assemble-prompt';
export { contextBudget, DEFAULT_PRIORITIES, DEFAULT_RESERVE_OUTPUT_TOKENS } from './context/context-budget';
export type { ContextBudget, ContextConfig } from './context/context-budget';
export { truncateText } from './context/truncate-text';
export { judge, evaluatorIssues, EvaluatorFailure, workflowVerdict } from './evaluators/builtin-evaluators';
export type { EvaluatedRun, Judgement } from './evaluators/builtin-evaluators';
export { CallRecording, servedSeqs } from './replay/call-recording';
export { modelCallFingerprint, toolCallFingerprint } from './replay/call-fingerprints';
export { replayReport } from './replay/replay-report';
