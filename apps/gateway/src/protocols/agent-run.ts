import { readRunLog, type Bus } from '@spindle/bus';
import { isRunId, SpindleError, type Principal, type RunEvent } from '@spindle/contracts';
import { type WorkflowCatalogRepository } from '@spindle/control-plane';

/** The workflow a protocol endpoint speaks for (A2A's agent, AG-UI's agent). */
export interface AgentWorkflow {
  name: string;
  version: number;
  definition: unknown;
}

/**
 * The log of a run of `workflow` in the caller's tenant, or `undefined` for any other id: a
 * protocol that names runs by id (an A2A task, an AG-UI interrupt) sees no other agent's or
 * tenant's runs.
 */
export async function readAgentRun(bus: Bus, caller: Principal, workflow: AgentWorkflow, runId: string): Promise<RunEvent[] | undefined> {
  const events = await readTenantRun(bus, caller, runId);
  const queued = events?.[0];
  return queued?.type === 'run.queued' && queued.data.workflow.name === workflow.name ? events : undefined;
}

/** The log of a run in the caller's tenant (of any workflow: an MCP task), or `undefined` for any other id. */
export async function readTenantRun(bus: Bus, caller: Principal, runId: string): Promise<RunEvent[] | undefined> {
  if (!isRunId(runId)) return undefined;
  const { events } = await readRunLog(bus, runId);
  const queued = events[0];
  return queued?.type === 'run.queued' && queued.data.tenant === caller.tenant ? events : undefined;
}

/** The workflow a protocol endpoint names, latest version; one that does not exist is `404 workflow_not_found`. */
export async function findAgentWorkflow(catalog: WorkflowCatalogRepository, caller: Principal, name: string): Promise<AgentWorkflow> {
  const found = await catalog.find(caller.tenant, name);
  if (!found) throw new SpindleError('workflow_not_found', `no workflow named "${name}"`);
  return { name, version: found.version, definition: found.definition };
}
