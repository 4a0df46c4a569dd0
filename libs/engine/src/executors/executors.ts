import type { NodeType } from '../definition/workflow-definition.schema';
import { agentExecutor } from './agent.executor';
import { appendExecutor } from './append.executor';
import { conditionExecutor } from './condition.executor';
import { failExecutor } from './fail.executor';
import { forkExecutor } from './fork.executor';
import { functionExecutor } from './function.executor';
import { humanExecutor } from './human.executor';
import { llmExecutor } from './llm.executor';
import { loopExecutor } from './loop.executor';
import type { NodeExecutor } from './node-executor';
import { retrieveExecutor } from './retrieve.executor';
import { routerExecutor } from './router.executor';
import { setExecutor } from './set.executor';
import { subgraphExecutor } from './subgraph.executor';
import { toolExecutor } from './tool.executor';

/** Exhaustive: a new node type does not compile until it has an executor. */
export const executors: { [T in NodeType]: NodeExecutor<T, unknown> } = {
  set: setExecutor,
  llm: llmExecutor,
  condition: conditionExecutor,
  function: functionExecutor,
  agent: agentExecutor,
  tool: toolExecutor,
  router: routerExecutor,
  loop: loopExecutor,
  fork: forkExecutor,
  subgraph: subgraphExecutor,
  append: appendExecutor,
  fail: failExecutor,
  human: humanExecutor,
  retrieve: retrieveExecutor,
};
