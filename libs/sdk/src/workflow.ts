import type { JsonSchema, WorkflowDefinitionJson, WorkflowOptionsJson } from './definition-types';

/**
 * What the CLI deploys: a named definition. The brand is a registered symbol, so a workflow made with
 * another copy of this package (the user's own install) is recognised too.
 */
export const WORKFLOW_BRAND: unique symbol = Symbol.for('@spindle/sdk.workflow');

export interface Workflow<D extends WorkflowDefinitionJson = WorkflowDefinitionJson> {
  readonly [WORKFLOW_BRAND]: true;
  /** Its catalog name: what `spindle deploy` saves it under. */
  readonly name: string;
  /** The JSON definition, exactly as it would be written by hand. */
  build(): D;
  /** The same, so `JSON.stringify(workflow)` writes the definition. */
  toJSON(): D;
}

/** A workflow's catalog name (as the gateway's path takes it). */
const WORKFLOW_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** A builder refuses what it can tell is wrong while it is built; the gateway checks the rest at save. */
export class WorkflowBuildError extends Error {
  override readonly name = 'WorkflowBuildError';
  readonly code = 'invalid_workflow';
}

export function isWorkflow(value: unknown): value is Workflow {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const candidate = value as { [WORKFLOW_BRAND]?: unknown; name?: unknown; build?: unknown };
  return candidate[WORKFLOW_BRAND] === true && typeof candidate.name === 'string' && typeof candidate.build === 'function';
}

export function checkWorkflowName(name: string): string {
  if (!WORKFLOW_NAME.test(name))
    throw new WorkflowBuildError(
      `workflow name "${name}" must be lowercase letters, digits, _ or - (max 63), starting with a letter or digit`,
    );
  return name;
}

/**
 * A zod 4 schema (anything with zod's `toJSONSchema()` method): the package never imports zod, so an
 * author who does not use it needs none.
 */
export interface ZodSchemaLike {
  toJSONSchema(params?: { io?: 'input' | 'output' }): object;
}

/** The options a workflow takes besides its graph or agents; `parameters` as a JSON Schema or a zod schema. */
export interface WorkflowOptions extends Omit<WorkflowOptionsJson, 'parameters'> {
  readonly parameters?: JsonSchema | ZodSchemaLike;
}

/**
 * The options as the definition writes them: only the ones given, and a zod schema as the JSON Schema
 * of what a run may pass (its input side: a field with a default may be left out).
 */
export function optionsJson(options: WorkflowOptions): WorkflowOptionsJson {
  const { parameters, ...rest } = options;
  if (parameters === undefined) return rest;
  return { ...rest, parameters: isZodSchema(parameters) ? (parameters.toJSONSchema({ io: 'input' }) as JsonSchema) : parameters };
}

function isZodSchema(value: JsonSchema | ZodSchemaLike): value is ZodSchemaLike {
  return typeof (value as { toJSONSchema?: unknown }).toJSONSchema === 'function';
}

/** Plain JSON: what is left out of JSON (undefined fields) is left out here too, and nothing is shared with the caller. */
export function plainJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
