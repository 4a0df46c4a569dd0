import type { EdgeJson, GraphDefinitionJson, NodeJson, NodeSpec, SpecOf, SubgraphJson, SubgraphSource } from './definition-types';
import { handlesOf, type HandlesOf } from './node-handles';
import {
  checkWorkflowName,
  optionsJson,
  plainJson,
  WORKFLOW_BRAND,
  WorkflowBuildError,
  type Workflow,
  type WorkflowOptions,
} from './workflow';

/** An id not used yet in this graph (a repeated one is `never`, so the call does not compile). */
type NewId<Id extends string, Ids extends string> = Id extends Ids ? never : Id;
/** The spec with no field its node type does not have: `output_key` on a condition is a type error. */
type Exact<S extends NodeSpec> = S & { readonly [K in Exclude<keyof S, keyof SpecOf<S['type']>>]: never };
/** Nodes an edge may leave: every node but those that emit no handle (fail). */
type SourceIds<H> = { [K in keyof H]: [H[K]] extends [never] ? never : K }[keyof H] & string;
/** An edge's handle: optional when the node emits `default`, required (one it emits) when it does not. */
type EdgeOptions<Handle extends string> = 'default' extends Handle
  ? [options?: { readonly handle?: Handle }]
  : [options: { readonly handle: Handle }];

interface GraphParts {
  readonly nodes: readonly NodeJson[];
  readonly edges: readonly EdgeJson[];
  readonly entry?: string;
  /** Handles by node id, for the checks an untyped caller (plain JavaScript) gets at run time. */
  readonly handles: ReadonlyMap<string, readonly string[]>;
}

const EMPTY: GraphParts = { nodes: [], edges: [], handles: new Map() };

/** A named top-level graph (from `workflow()`). */
interface WorkflowHeader {
  readonly name: string;
  readonly options: WorkflowOptions;
}

/** The builder a call returns: a workflow's stays a workflow. */
type Next<Ids extends string, H, Out extends SubgraphJson> = Out extends GraphDefinitionJson
  ? WorkflowBuilder<Ids, H>
  : GraphBuilder<Ids, H, Out>;

/**
 * Nodes and edges, added one at a time. Every call returns a new builder (a shared base can be
 * extended in two ways), and the type remembers the node ids and each one's handles, so an edge to a
 * node that does not exist or on a handle its node never emits does not compile.
 */
export class GraphBuilder<Ids extends string = never, H = Record<never, never>, Out extends SubgraphJson = SubgraphJson> {
  constructor(
    private readonly parts: GraphParts = EMPTY,
    private readonly header?: WorkflowHeader,
  ) {
    if (header) Object.assign(this, { [WORKFLOW_BRAND]: true, name: header.name });
  }

  node<const Id extends string, const S extends NodeSpec>(
    id: Id & NewId<Id, Ids>,
    spec: Exact<S>,
  ): Next<Ids | Id, H & Record<Id, HandlesOf<S>>, Out> {
    return this.with(addNode(this.parts, id, spec));
  }

  edge<F extends SourceIds<H>, T extends Ids>(from: F, to: T, ...options: EdgeOptions<H[F] & string>): Next<Ids, H, Out> {
    return this.with(addEdge(this.parts, from, to, options[0]?.handle));
  }

  /** The node the graph starts at; the first one added when not set. */
  entry(id: Ids): Next<Ids, H, Out> {
    return this.with(setEntry(this.parts, id));
  }

  build(): Out {
    const graph = subgraphJson(this.parts);
    if (!this.header) return plainJson(graph) as Out;
    if (this.parts.nodes.length === 0) throw new WorkflowBuildError(`workflow "${this.header.name}" has no nodes`);
    return plainJson<GraphDefinitionJson>({ kind: 'graph', ...optionsJson(this.header.options), ...graph }) as unknown as Out;
  }

  toJSON(): Out {
    return this.build();
  }

  private with<B>(parts: GraphParts): B {
    return new GraphBuilder(parts, this.header) as B;
  }
}

/** A workflow's top-level graph: a `GraphBuilder` with a name and the definition's options, which `spindle deploy` saves. */
export type WorkflowBuilder<Ids extends string = never, H = Record<never, never>> = GraphBuilder<Ids, H, GraphDefinitionJson> &
  Workflow<GraphDefinitionJson>;

/** A graph workflow: `workflow('triage', { description }).node(…).edge(…)`. */
export function workflow(name: string, options: WorkflowOptions = {}): WorkflowBuilder {
  return new GraphBuilder<never, Record<never, never>, GraphDefinitionJson>(EMPTY, {
    name: checkWorkflowName(name),
    options,
  }) as WorkflowBuilder;
}

/** A nested graph (a loop's `body`, a fork's branch): the same builder without a name or options. */
export function graph(): GraphBuilder {
  return new GraphBuilder();
}

function addNode(parts: GraphParts, id: string, spec: NodeSpec): GraphParts {
  if (parts.handles.has(id)) throw new WorkflowBuildError(`node "${id}" is already in this graph`);
  const handles = new Map(parts.handles).set(id, handlesOf(spec));
  return { ...parts, nodes: [...parts.nodes, nodeJson(id, spec)], handles };
}

function addEdge(parts: GraphParts, from: string, to: string, handle: string | undefined): GraphParts {
  const emitted = parts.handles.get(from);
  if (emitted === undefined) throw new WorkflowBuildError(`edge ${from} → ${to}: no node "${from}" in this graph`);
  if (!parts.handles.has(to)) throw new WorkflowBuildError(`edge ${from} → ${to}: no node "${to}" in this graph`);
  if (!emitted.includes(handle ?? 'default')) {
    const emits = emitted.length > 0 ? emitted.map((h) => `"${h}"`).join(', ') : 'no handle';
    throw new WorkflowBuildError(`edge ${from} → ${to}: node "${from}" emits ${emits}, not "${handle ?? 'default'}"`);
  }
  const edge: EdgeJson = handle === undefined ? { from, to } : { from, to, handle };
  return { ...parts, edges: [...parts.edges, edge] };
}

function setEntry(parts: GraphParts, id: string): GraphParts {
  if (!parts.handles.has(id)) throw new WorkflowBuildError(`entry: no node "${id}" in this graph`);
  return { ...parts, entry: id };
}

/** `edges` only when there are some, `entry` only when set: what a person writes for a graph. */
function subgraphJson(parts: GraphParts): SubgraphJson {
  return {
    nodes: parts.nodes,
    ...(parts.edges.length > 0 ? { edges: parts.edges } : {}),
    ...(parts.entry !== undefined ? { entry: parts.entry } : {}),
  };
}

function nodeJson(id: string, spec: NodeSpec): NodeJson {
  if (spec.type === 'loop') return { id, ...spec, body: nestedJson(spec.body) };
  if (spec.type === 'fork')
    return { id, ...spec, branches: Object.fromEntries(Object.entries(spec.branches).map(([branch, g]) => [branch, nestedJson(g)])) };
  return { id, ...spec };
}

function nestedJson(source: SubgraphSource): SubgraphJson {
  return 'build' in source && typeof source.build === 'function' ? source.build() : (source as SubgraphJson);
}
