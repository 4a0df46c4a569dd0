export { workflow, graph, GraphBuilder } from './graph-builder';
export type { WorkflowBuilder } from './graph-builder';
export { sequential, concurrent, handoff, groupChat, magentic } from './pattern-builders';
export type { SequentialSpec, ConcurrentSpec, HandoffSpec, ManagedSpec } from './pattern-builders';
export { isWorkflow, WorkflowBuildError, WORKFLOW_BRAND } from './workflow';
export type { Workflow, WorkflowOptions, ZodSchemaLike } from './workflow';
export type { HandlesOf } from './node-handles';
export type * from './definition-types';
