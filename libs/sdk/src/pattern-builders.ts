import type { PatternDefinitionJson, PatternKind, PatternParticipant } from './definition-types';
import { checkWorkflowName, optionsJson, plainJson, WORKFLOW_BRAND, type Workflow, type WorkflowOptions } from './workflow';

/**
 * The five multi-agent patterns as functions: `sequential('brief', { agents: [...] })`. Agents are
 * written out (`{ name, model, … }`) or named from the agent catalog (`{ ref, version? }`); the
 * gateway compiles the pattern to a graph at save, with the same checks as a hand-written one.
 */
type Agents<Min extends 1 | 2> = Min extends 2
  ? readonly [PatternParticipant, PatternParticipant, ...PatternParticipant[]]
  : readonly [PatternParticipant, ...PatternParticipant[]];
/** The names a pattern's agents go by: a written-out agent's `name`, a catalog agent's `ref`. */
type AgentName<A> = A extends { readonly name: infer N extends string }
  ? N
  : A extends { readonly ref: infer R extends string }
    ? R
    : never;

/** What every pattern takes besides its agents. */
interface PatternOptions extends WorkflowOptions {
  /** The wait limit (ms) of every participant (agents, manager, aggregator) without its own `timeout_ms`. */
  readonly agentTimeoutMs?: number;
}
export interface SequentialSpec extends PatternOptions {
  readonly agents: Agents<1>;
}
export interface ConcurrentSpec extends PatternOptions {
  readonly agents: Agents<2>;
  readonly aggregator?: PatternParticipant;
}
export interface HandoffSpec<A extends Agents<2> = Agents<2>> extends PatternOptions {
  readonly agents: A;
  /** The agent that takes the first turn (one of `agents`); the first one when absent. */
  readonly start?: AgentName<A[number]>;
  readonly maxIterations?: number;
}
export interface ManagedSpec extends PatternOptions {
  readonly agents: Agents<1>;
  /** Picks the next speaker (group chat) or plans and tracks progress (magentic). */
  readonly manager: PatternParticipant;
  readonly maxIterations?: number;
}

/** Each agent works on the previous one's answer; the last answer is the run's `output`. */
export function sequential(name: string, spec: SequentialSpec): Workflow<PatternDefinitionJson> {
  return patternWorkflow(name, 'sequential', spec);
}

/** Every agent answers at once; an optional aggregator combines their answers. */
export function concurrent(name: string, spec: ConcurrentSpec): Workflow<PatternDefinitionJson> {
  return patternWorkflow(name, 'concurrent', spec);
}

/** One agent holds the conversation at a time and passes it on with its `handoff_to_<name>` tool. */
export function handoff<const A extends Agents<2>>(name: string, spec: HandoffSpec<A>): Workflow<PatternDefinitionJson> {
  return patternWorkflow(name, 'handoff', spec);
}

/** Each round the manager picks the next speaker, or `FINISH`. */
export function groupChat(name: string, spec: ManagedSpec): Workflow<PatternDefinitionJson> {
  return patternWorkflow(name, 'group_chat', spec);
}

/** The manager plans, then each round names the next agent and its instruction, replanning when stuck. */
export function magentic(name: string, spec: ManagedSpec): Workflow<PatternDefinitionJson> {
  return patternWorkflow(name, 'magentic', spec);
}

function patternWorkflow(
  name: string,
  kind: PatternKind,
  spec: WorkflowOptions & Omit<PatternDefinitionJson, 'kind' | 'parameters'>,
): Workflow<PatternDefinitionJson> {
  const checked = checkWorkflowName(name);
  const build = (): PatternDefinitionJson => plainJson({ kind, ...optionsJson(spec) } as PatternDefinitionJson);
  return { [WORKFLOW_BRAND]: true, name: checked, build, toJSON: build };
}
