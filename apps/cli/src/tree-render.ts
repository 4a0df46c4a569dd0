import { humanDuration } from '@spindle/contracts';
import { answerHint } from './answer-body';
import type { LiveTree, LiveTreeNode } from './live-tree';
import { formatTable } from './text-table';

const SYMBOL: Record<LiveTreeNode['status'], string> = { running: '…', completed: '✓', failed: '✗', canceled: '⊘' };

/**
 * The live tree as lines: a header with the run's status, tokens and cost, then one aligned row
 * per span (children indented under their parent, a fork branch's first span marked `[branch]`),
 * then what the run waits for. The same lines serve each in-place frame and the final print.
 */
export function renderLiveTree(tree: LiveTree): string[] {
  const rows: string[][] = [];
  const walk = (node: LiveTreeNode, depth: number) => {
    rows.push(treeRow(node, depth));
    node.children.forEach((child) => walk(child, depth + 1));
  };
  tree.nodes.forEach((node) => walk(node, 0));
  const workflow = tree.workflow ? `${tree.workflow.name} v${tree.workflow.version}` : 'run';
  const header = [`${workflow}  ${tree.runId}`, tree.status, tokens(tree.tokens), cost(tree.costUsd), times(tree)];
  const lines = formatTable(
    [{ header: '' }, { header: '' }, { header: '', align: 'right' }, { header: '', align: 'right' }, { header: '', align: 'right' }],
    [header, ...rows],
    { headers: false },
  );
  if (tree.error) lines.push(`error: ${tree.error.code}: ${tree.error.message}`);
  for (const request of tree.waitingOn)
    lines.push(`waiting for a person: spindle requests answer ${request.requestId} ${answerHint(request.kind)}`);
  return lines;
}

function treeRow(node: LiveTreeNode, depth: number): string[] {
  const kind = node.kind === 'node' ? (node.nodeType ?? 'node') : node.kind;
  const marks = [node.iteration !== undefined ? `#${node.iteration}` : '', node.branchId !== undefined ? `[${node.branchId}]` : '']
    .filter(Boolean)
    .join(' ');
  const status = node.kind === 'request' && node.status === 'running' ? 'waiting' : node.status;
  return [
    `${'  '.repeat(depth + 1)}${SYMBOL[node.status]} ${node.label} (${kind})${marks ? ` ${marks}` : ''}`,
    status,
    node.tokens > 0 ? tokens(node.tokens) : '',
    node.costUsd > 0 ? cost(node.costUsd) : '',
    node.kind === 'request' ? waited(node) : times(node),
  ];
}

function tokens(count: number): string {
  return `${count} tok`;
}

function cost(usd: number): string {
  return `$${usd.toFixed(usd > 0 && usd < 0.01 ? 5 : 2)}`;
}

/**
 * Wall time, and working time when a wait for a person made them differ: a run that waited 20 s
 * for a person reads `wall 20.6 s · working 107 ms`, over its request's `waited 20.5 s`.
 */
function times({ wallMs, workingMs }: { wallMs?: number; workingMs?: number }): string {
  if (wallMs === undefined) return '';
  const wall = `wall ${humanDuration(wallMs)}`;
  return workingMs === undefined || workingMs === wallMs ? wall : `${wall} · working ${humanDuration(workingMs)}`;
}

/** A request's whole span is the wait for its answer. */
function waited({ wallMs }: { wallMs?: number }): string {
  return wallMs === undefined ? '' : `waited ${humanDuration(wallMs)}`;
}
