import type { NodeType } from '../definition/workflow-definition.schema';
import { conditionExecutor } from './condition.executor';
import { functionExecutor } from './function.executor';
import { llmExecutor } from './llm.executor';
import type { NodeExecutor } from './node-executor';
import { setExecutor } from './set.executor';

/** Exhaustive: a new node type does not compile until it has an executor. */
export const executors: { [T in NodeType]: NodeExecutor<T, unknown> } = {
  set: setExecutor,
  llm: llmExecutor,
  condition: conditionExecutor,
  function: functionExecutor,
};
