import { SpindleError, type FieldIssue } from '@spindle/contracts';
import type { z } from 'zod';
import { checkExpression } from '../expressions/cel-expression';
import { jsonSchemaProblem } from './json-schema';
import { handlesOf, nodeTypes, workflowDefinitionSchema, type GraphDefinition, type WorkflowDefinition } from './workflow-definition.schema';

/**
 * Parses and checks a definition: shape (zod), then graph rules — unique ids, edges between
 * existing nodes with handles the source can emit, a valid entry, every node reachable,
 * expressions that parse. Throws `invalid_definition` listing every issue with node and field.
 */
export function validateDefinition(raw: unknown): WorkflowDefinition {
  const parsed = workflowDefinitionSchema.safeParse(raw);
  if (!parsed.success) {
    throw invalid(parsed.error.issues.map((i) => zodIssue(i, raw)));
  }
  const issues = graphIssues(parsed.data);
  if (issues.length > 0) throw invalid(issues);
  return parsed.data;
}

/** The node a definition starts at: `entry`, else the first node. */
export function entryNodeId(def: GraphDefinition): string {
  return def.entry ?? def.nodes[0].id;
}

function graphIssues(def: GraphDefinition): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const byId = new Map<string, GraphDefinition['nodes'][number]>();
  def.nodes.forEach((node, i) => {
    if (byId.has(node.id)) issues.push({ field: `nodes[${i}].id`, node: node.id, message: `duplicate node id "${node.id}"` });
    else byId.set(node.id, node);
    if (node.type === 'condition') {
      const error = checkExpression(node.expression);
      if (error) issues.push({ field: `nodes[${i}].expression`, node: node.id, message: `expression does not parse: ${error}` });
    }
    if (node.type === 'router') {
      node.routes.forEach((route, r) => {
        const error = checkExpression(route.when);
        if (error) issues.push({ field: `nodes[${i}].routes[${r}].when`, node: node.id, message: `expression does not parse: ${error}` });
      });
    }
  });
  const seenEdges = new Set<string>();
  def.edges.forEach((edge, i) => {
    const from = byId.get(edge.from);
    if (!from) issues.push({ field: `edges[${i}].from`, node: edge.from, message: `edge from unknown node "${edge.from}"` });
    if (!byId.has(edge.to)) issues.push({ field: `edges[${i}].to`, node: edge.to, message: `edge to unknown node "${edge.to}"` });
    if (!from) return;
    const handle = edge.handle ?? 'default';
    const allowed = handlesOf(from);
    if (!allowed.includes(handle)) {
      issues.push({ field: `edges[${i}].handle`, node: edge.from, message: `a ${from.type} node has handles ${allowed.map((h) => `"${h}"`).join(', ')}, not "${handle}"` });
    }
    const key = `${edge.from}\u0000${handle}`;
    if (seenEdges.has(key)) {
      issues.push({ field: `edges[${i}]`, node: edge.from, message: `node "${edge.from}" already has an edge on handle "${handle}" (parallel branches need a fork node)` });
    }
    seenEdges.add(key);
  });
  if (def.parameters) {
    const problem = jsonSchemaProblem(def.parameters);
    if (problem) issues.push({ field: 'parameters', message: `not a valid JSON Schema: ${problem}` });
  }
  if (def.entry !== undefined && !byId.has(def.entry)) {
    issues.push({ field: 'entry', node: def.entry, message: `entry names unknown node "${def.entry}"` });
  }
  if (issues.length === 0) issues.push(...unreachable(def));
  return issues;
}

function unreachable(def: GraphDefinition): FieldIssue[] {
  const next = new Map<string, string[]>();
  for (const e of def.edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const seen = new Set<string>([entryNodeId(def)]);
  const queue = [entryNodeId(def)];
  while (queue.length > 0) {
    for (const to of next.get(queue.shift() as string) ?? []) {
      if (!seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  return def.nodes.flatMap((node, i) =>
    seen.has(node.id) ? [] : [{ field: `nodes[${i}]`, node: node.id, message: `node "${node.id}" is unreachable from entry "${entryNodeId(def)}"` }],
  );
}

function zodIssue(issue: z.core.$ZodIssue, raw: unknown): FieldIssue {
  const path = issue.path;
  const field = path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), '');
  const node = path[0] === 'nodes' && typeof path[1] === 'number' ? nodeIdAt(raw, path[1]) : undefined;
  let message = issue.message;
  if (issue.code === 'invalid_union' && path[path.length - 1] === 'type') message = 'unknown node type';
  if (issue.code === 'invalid_union' && path.length === 2 && path[0] === 'nodes') message = `unknown node type (expected one of ${nodeTypes.join(', ')})`;
  if (issue.code === 'unrecognized_keys') message = `unknown field(s): ${issue.keys.join(', ')}`;
  return { field: field || '(root)', message, ...(node ? { node } : {}) };
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
  return new SpindleError('invalid_definition', `invalid workflow definition: ${where}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`, { issues });
}
