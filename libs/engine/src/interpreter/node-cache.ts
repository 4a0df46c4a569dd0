import { canonicalJson } from '@spindle/contracts';
import { sha256Hex } from '../hashing/sha256';
import type { WorkflowNode } from '../definition/workflow-definition.schema';
import type { StoredNodeResult } from '../ports';
import type { RunEnvironment } from './run-environment';
import type { RunState } from './state';

/** A node that may store its result: `checkpoint: true` on agent, llm, tool and function nodes. */
export function isCheckpointed(node: WorkflowNode): node is Extract<WorkflowNode, { checkpoint: boolean }> {
  return 'checkpoint' in node && node.checkpoint === true;
}

/** Hash of the state the node sees, minus its volatile keys: a changed input is a different entry. */
export function inputHash(state: RunState, volatileKeys: readonly string[]): string {
  const kept = Object.fromEntries(Object.entries(state).filter(([key]) => !volatileKeys.includes(key)));
  return sha256Hex(canonicalJson(kept));
}

/** sha256(runId | nodeId | iteration | inputHash): loop iterations have their own entries. */
export function nodeResultKey(runId: string, nodeId: string, iteration: number | undefined, hash: string): string {
  return sha256Hex(`${runId}|${nodeId}|${iteration ?? 0}|${hash}`);
}

/**
 * The node's own key, and a stored result for it (under this run's key or an ancestor's, for a
 * fork) when the store has one. A store that fails is a miss: the node runs.
 */
export async function lookUpNodeResult(
  node: Extract<WorkflowNode, { checkpoint: boolean }>,
  state: RunState,
  iteration: number | undefined,
  env: RunEnvironment,
): Promise<{ key: string; stored?: StoredNodeResult }> {
  const hash = inputHash(state, node.volatile_keys);
  const key = nodeResultKey(env.runId, node.id, iteration, hash);
  if (!env.results) return { key };
  const keys = [key, ...(env.cacheRuns ?? []).map((runId) => nodeResultKey(runId, node.id, iteration, hash))];
  const stored = await env.results.find(keys).catch(() => undefined);
  return { key, stored };
}
