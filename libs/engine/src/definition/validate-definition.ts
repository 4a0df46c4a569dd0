import { evaluatorIssues } from '../evaluators/builtin-evaluators';
import { SpindleError, zodFieldIssues, type FieldIssue } from '@spindle/contracts';
import type { z } from 'zod';
import { checkExpression } from '../expressions/cel-expression';
import { toGraph } from '../patterns/compile-pattern';
import { jsonSchemaProblem } from './json-schema';
import { modelTakesNoFiles } from './model-media-types';
import { jsonSchemaNodes, MAX_DEFINITION_SCHEMA_NODES } from './json-schema-limits';
import {
  handlesOf,
  nodeTypes,
  workflowDefinitionSchema,
  type GraphDefinition,
  type NodeContainer,
  type WorkflowDefinition,
  type WorkflowNode,
} from './workflow-definition.schema';

/**
 * Parses and checks a definition: shape (zod), then graph rules — unique ids, edges between
 * existing nodes with handles the source can emit, a valid entry, every node reachable,
 * expressions that parse within their limits, JSON Schemas that compile within theirs.
 * Throws `invalid_definition` listing every issue with node and field.
 */
export function validateDefinition(raw: unknown): WorkflowDefinition {
  const parsed = workflowDefinitionSchema.safeParse(raw);
  if (!parsed.success) {
    throw invalid(parsed.error.issues.map((i) => zodIssue(i, raw)));
  }
  // Patterns are checked as the graph they compile to: the same rules, the same messages.
  const graph = toGraph(parsed.data);
  const issues = [...graphIssues(graph), ...evaluatorIssues(graph.evaluators)];
  if (issues.length > 0) throw invalid(issues);
  const refused = attachmentIssues(graph, '');
  if (refused.length > 0) {
    throw new SpindleError('attachment_not_supported', `${refused[0].field}: ${refused[0].message}`, { issues: refused });
  }
  return parsed.data;
}

/** The node a definition starts at: `entry`, else the first node. */
export function entryNodeId(def: GraphDefinition): string {
  return def.entry ?? def.nodes[0].id;
}

function graphIssues(def: GraphDefinition): FieldIssue[] {
  // Counted before any schema is compiled: compile time follows the schemas' total size.
  const schemaNodes = [def.parameters, ...schemasIn(def)].reduce(
    (sum, s) => sum + (s ? jsonSchemaNodes(s, MAX_DEFINITION_SCHEMA_NODES) : 0),
    0,
  );
  if (schemaNodes > MAX_DEFINITION_SCHEMA_NODES) {
    return [
      {
        field: '(root)',
        message:
          `the definition's JSON Schemas have more than ${MAX_DEFINITION_SCHEMA_NODES} values together ` + '(MAX_DEFINITION_SCHEMA_NODES)',
      },
    ];
  }
  const issues = containerIssues(def, '', new Set());
  if (def.parameters) {
    const problem = jsonSchemaProblem(def.parameters);
    if (problem) issues.push({ field: 'parameters', message: `not a valid JSON Schema: ${problem}` });
  }
  return issues;
}

/**
 * Nodes with `attachments` whose model takes no files at all: known at save (the model is static),
 * while a file's media type is only known at the call, where the model port refuses it.
 */
function attachmentIssues(graph: NodeContainer, at: string): FieldIssue[] {
  return graph.nodes.flatMap((node, i): FieldIssue[] => {
    const where = `${at}nodes[${i}]`;
    if (node.type === 'loop') return attachmentIssues(node.body, `${where}.body.`);
    if (node.type === 'fork')
      return Object.entries(node.branches).flatMap(([id, branch]) => attachmentIssues(branch, `${where}.branches.${id}.`));
    if ((node.type !== 'llm' && node.type !== 'agent') || node.attachments === undefined) return [];
    if (!modelTakesNoFiles(node.model)) return [];
    return [{ field: `${where}.attachments`, node: node.id, message: `model "${node.model}" takes no attachments` }];
  });
}

/** The JSON Schemas of a container's nodes (agent answers, human forms), nested graphs included. */
function* schemasIn(graph: NodeContainer): Iterable<Record<string, unknown> | undefined> {
  for (const node of graph.nodes) {
    if (node.type === 'agent') yield node.structured;
    if (node.type === 'human') yield node.schema;
    if (node.type === 'loop') yield* schemasIn(node.body);
    if (node.type === 'fork') for (const branch of Object.values(node.branches)) yield* schemasIn(branch);
  }
}

/**
 * The graph rules for one container (the definition, a loop body, a fork branch), recursing
 * into nested ones. Node ids are unique across the whole definition, so a trace can name any.
 */
function containerIssues(graph: NodeContainer, at: string, ids: Set<string>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const byId = new Map<string, WorkflowNode>();
  graph.nodes.forEach((node, i) => {
    const where = `${at}nodes[${i}]`;
    if (ids.has(node.id)) issues.push({ field: `${where}.id`, node: node.id, message: `duplicate node id "${node.id}"` });
    ids.add(node.id);
    if (!byId.has(node.id)) byId.set(node.id, node);
    issues.push(...nodeIssues(node, where, ids));
  });
  const seenEdges = new Set<string>();
  graph.edges.forEach((edge, i) => {
    const where = `${at}edges[${i}]`;
    const from = byId.get(edge.from);
    if (!from) issues.push({ field: `${where}.from`, node: edge.from, message: `edge from unknown node "${edge.from}"` });
    if (!byId.has(edge.to)) issues.push({ field: `${where}.to`, node: edge.to, message: `edge to unknown node "${edge.to}"` });
    if (!from) return;
    const handle = edge.handle ?? 'default';
    const allowed = handlesOf(from);
    if (allowed.length === 0) {
      issues.push({ field: where, node: edge.from, message: `a ${from.type} node ends the run: no edge may leave it` });
    } else if (!allowed.includes(handle)) {
      issues.push({
        field: `${where}.handle`,
        node: edge.from,
        message: `a ${from.type} node has handles ${allowed.map((h) => `"${h}"`).join(', ')}, not "${handle}"`,
      });
    }
    const key = `${edge.from}\u0000${handle}`;
    if (seenEdges.has(key)) {
      issues.push({
        field: where,
        node: edge.from,
        message: `node "${edge.from}" already has an edge on handle "${handle}" (parallel branches need a fork node)`,
      });
    }
    seenEdges.add(key);
  });
  if (graph.entry !== undefined && !byId.has(graph.entry)) {
    issues.push({ field: `${at}entry`, node: graph.entry, message: `entry names unknown node "${graph.entry}"` });
  }
  if (issues.length === 0) issues.push(...unreachable(graph, at));
  return issues;
}

function nodeIssues(node: WorkflowNode, where: string, ids: Set<string>): FieldIssue[] {
  const expression = (field: string, source: string) => {
    const error = checkExpression(source);
    return error ? [{ field: `${where}.${field}`, node: node.id, message: `expression ${error}` }] : [];
  };
  switch (node.type) {
    case 'condition':
      return expression('expression', node.expression);
    case 'router':
      return node.routes.flatMap((route, r) => {
        const field = `${where}.routes[${r}]`;
        if (node.model)
          return route.description
            ? []
            : [{ field: `${field}.description`, node: node.id, message: 'a route the model picks needs a description' }];
        return route.when
          ? expression(`routes[${r}].when`, route.when)
          : [{ field: `${field}.when`, node: node.id, message: 'an expression route needs "when" (or give the router a "model")' }];
      });
    case 'llm':
      return node.attachments !== undefined ? expression('attachments', node.attachments) : [];
    case 'agent': {
      const problem = node.structured ? jsonSchemaProblem(node.structured) : undefined;
      return [
        ...(node.attachments !== undefined ? expression('attachments', node.attachments) : []),
        ...(problem ? [{ field: `${where}.structured`, node: node.id, message: `not a valid JSON Schema: ${problem}` }] : []),
      ];
    }
    case 'human': {
      const problem = node.schema ? jsonSchemaProblem(node.schema) : undefined;
      return problem ? [{ field: `${where}.schema`, node: node.id, message: `not a valid JSON Schema: ${problem}` }] : [];
    }
    case 'loop':
      return [...(node.until ? expression('until', node.until) : []), ...containerIssues(node.body, `${where}.body.`, ids)];
    case 'fork': {
      const branches = Object.entries(node.branches);
      if (branches.length === 0) return [{ field: `${where}.branches`, node: node.id, message: 'a fork needs at least one branch' }];
      return branches.flatMap(([branchId, branch]) => containerIssues(branch, `${where}.branches.${branchId}.`, ids));
    }
    default:
      return [];
  }
}

function unreachable(graph: NodeContainer, at: string): FieldIssue[] {
  const entry = graph.entry ?? graph.nodes[0].id;
  const next = new Map<string, string[]>();
  for (const e of graph.edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const seen = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    for (const to of next.get(queue.shift() as string) ?? []) {
      if (!seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  return graph.nodes.flatMap((node, i) =>
    seen.has(node.id)
      ? []
      : [{ field: `${at}nodes[${i}]`, node: node.id, message: `node "${node.id}" is unreachable from entry "${entry}"` }],
  );
}

function zodIssue(issue: z.core.$ZodIssue, raw: unknown): FieldIssue {
  const path = issue.path;
  const [base] = zodFieldIssues([issue], { whole: '(root)' });
  const node = path[0] === 'nodes' && typeof path[1] === 'number' ? nodeIdAt(raw, path[1]) : undefined;
  let message = base.message;
  if (issue.code === 'invalid_union' && path[path.length - 1] === 'type') message = 'unknown node type';
  if (issue.code === 'invalid_union' && path.length === 2 && path[0] === 'nodes')
    message = `unknown node type (expected one of ${nodeTypes.join(', ')})`;
  return { ...base, message, ...(node ? { node } : {}) };
}

function nodeIdAt(raw: unknown, index: number): string | undefined {
  const nodes = (raw as { nodes?: unknown })?.nodes;
  const node = Array.isArray(nodes) ? nodes[index] : undefined;
  const id = (node as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}

function invalid(issues: FieldIssue[]): SpindleError {
  const first = issues[0];
  const where = first.node ? `node "${first.node}", field ${first.field}` : `field ${first.field}`;
  return new SpindleError(
    'invalid_definition',
    `invalid workflow definition: ${where}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`,
    { issues },
  );
}
