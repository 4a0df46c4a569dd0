import { SpindleError, type FieldIssue, type RunnerCapabilities } from '@spindle/contracts';
import { namedCapabilities, type NamedCapability, type WorkflowDefinition } from '@spindle/engine';

/**
 * Whether the live runners can run a definition, decided at save: every function and tool it
 * names must be announced by at least one runner, and its `runTimeoutMs` must not pass the
 * lowest runner ceiling (any runner may take the run, and would cut it there). Undefined when it
 * can; with no runner announced there is nothing to check against, and the caller decides.
 * Tools an agent's MCP servers bring (`<server>__<tool>`) and the engine's handoff tools are
 * found at run time, not announced, so they are not checked.
 */
export function capabilityRefusal(definition: WorkflowDefinition, runners: readonly RunnerCapabilities[]): SpindleError | undefined {
  if (runners.length === 0) return undefined;
  const functions = new Set(runners.flatMap((r) => r.functions.map((f) => f.name)));
  const tools = new Set(runners.flatMap((r) => r.tools.map((t) => t.name)));
  const named = namedCapabilities(definition);
  const missing = (kind: NamedCapability['kind'], known: ReadonlySet<string>): FieldIssue[] =>
    named
      .filter((n) => n.kind === kind && !known.has(n.name))
      .map((n) => ({
        field: n.field,
        ...(n.node !== undefined ? { node: n.node } : {}),
        message: `no live runner has the ${kind} "${n.name}" (registered: ${[...known].sort().join(', ') || 'none'})`,
      }));
  const unknownFunctions = missing('function', functions);
  if (unknownFunctions.length > 0) return refusal('function_not_found', unknownFunctions);
  const unknownTools = missing('tool', tools);
  if (unknownTools.length > 0) return refusal('tool_not_found', unknownTools);
  const ceiling = Math.min(...runners.map((r) => r.runTimeoutCeilingMs));
  if (definition.runTimeoutMs !== undefined && definition.runTimeoutMs > ceiling)
    return refusal('invalid_definition', [
      {
        field: 'runTimeoutMs',
        message:
          `${definition.runTimeoutMs} ms is above the runners' ceiling of ${ceiling} ms ` +
          '(RUN_TIMEOUT_CEILING_MS): a run would be cut there',
      },
    ]);
  return undefined;
}

function refusal(code: 'function_not_found' | 'tool_not_found' | 'invalid_definition', issues: FieldIssue[]): SpindleError {
  return new SpindleError(code, `field ${issues[0].field}: ${issues[0].message}`, { issues });
}
