import { z } from 'zod';

/**
 * What one runner can run, as it announces it on the bus (a key of the capabilities bucket per
 * runner): the gateway lists these (`GET /v1/functions`, `GET /v1/tools`) and checks saved
 * definitions against them. Runners serve every tenant today, so every tenant sees every runner.
 */
const timestamp = z.string().describe('An ISO 8601 timestamp.');
const jsonSchema = z.record(z.string(), z.unknown()).describe('A JSON Schema.');

/** Functions the runner has without plugins (`noop`, `word_count`, …) name this as their plugin. */
export const BUILT_IN_PLUGIN = 'built-in';

export const pluginCapabilitySchema = z.object({
  /** The module's exported `name`, else its nearest package.json's, else the path. */
  name: z.string(),
  version: z.string().optional(),
  /** As configured in `SPINDLE_PLUGINS`; `built-in` for the runner's own functions. */
  path: z.string(),
});

export const functionCapabilitySchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  inputSchema: jsonSchema.optional(),
  outputSchema: jsonSchema.optional(),
  pure: z.boolean(),
  /** The `path` of the plugin it comes from (`built-in` for the runner's own). */
  plugin: z.string(),
});

export const toolCapabilitySchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  inputSchema: jsonSchema,
  outputSchema: jsonSchema.optional(),
  plugin: z.string(),
});

export const runnerCapabilitiesSchema = z.object({
  runnerId: z.string().min(1),
  startedAt: timestamp,
  announcedAt: timestamp,
  /** The longest `runTimeoutMs` this runner honours; a longer one is cut to it. */
  runTimeoutCeilingMs: z.number().int().positive(),
  plugins: z.array(pluginCapabilitySchema),
  functions: z.array(functionCapabilitySchema),
  tools: z.array(toolCapabilitySchema),
});

export type PluginCapability = z.infer<typeof pluginCapabilitySchema>;
export type FunctionCapability = z.infer<typeof functionCapabilitySchema>;
export type ToolCapability = z.infer<typeof toolCapabilitySchema>;
export type RunnerCapabilities = z.infer<typeof runnerCapabilitiesSchema>;

/** A runner that has a listed function or tool, and when it last said so. */
const runnerRefSchema = z.object({ id: z.string(), announcedAt: timestamp });

/**
 * One function (or tool) as the routes list it: one entry per distinct variant, so a name whose
 * schemas or plugin differ between runners appears once per variant, each with its runners.
 */
const listedFields = {
  name: z.string(),
  description: z.string().optional(),
  inputSchema: jsonSchema.optional(),
  outputSchema: jsonSchema.optional(),
  plugin: pluginCapabilitySchema,
  runners: z.array(runnerRefSchema),
};
export const listedFunctionSchema = z.object({ ...listedFields, pure: z.boolean() });
export const listedToolSchema = z.object(listedFields);
export const functionListSchema = z.object({ functions: z.array(listedFunctionSchema) });
export const toolListSchema = z.object({ tools: z.array(listedToolSchema) });

export type ListedFunction = z.infer<typeof listedFunctionSchema>;
export type ListedTool = z.infer<typeof listedToolSchema>;
export type FunctionList = z.infer<typeof functionListSchema>;
export type ToolList = z.infer<typeof toolListSchema>;

/**
 * `PUT /v1/workflows/{name}?check=definition-only` (and the same on rollback): save without
 * asking whether any runner has the functions and tools it names, to deploy a workflow before its runner.
 */
export const capabilityCheckQuerySchema = z.strictObject({ check: z.enum(['full', 'definition-only']).default('full') });

/**
 * The `Spindle-Capability-Check` response header of a save: `passed`, `skipped-on-request`
 * (`?check=definition-only`), or `skipped-no-runners` (no runner has announced itself, so there is nothing to check against).
 */
export const CAPABILITY_CHECK_HEADER = 'spindle-capability-check';
export type CapabilityCheckOutcome = 'passed' | 'skipped-on-request' | 'skipped-no-runners';
