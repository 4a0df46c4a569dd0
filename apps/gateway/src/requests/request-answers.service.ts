import { appendToWaitingRun, query, readRunLog, type Bus } from '@spindle/bus';
import {
  isRunId,
  SpindleError,
  type AnswerBody,
  type AnswerOutcome,
  type ApprovalQueryResults,
  type Principal,
  type RunEvent,
} from '@spindle/contracts';
import { graphStructureHash, validateDefinition } from '@spindle/engine';
import { requestsInLog } from '@spindle/projections';
import { decideAnswer, type DefinitionUpgrade } from './answer-decision';
import { resolveAgentRefs, type AgentCatalogRepository, type FileLibrary, type WorkflowCatalogRepository } from '@spindle/control-plane';

/**
 * Answers a person's request. The run's log is the judge (not the approval projection, which
 * may lag): the answer is appended at the position read, the run's command queued, and a race
 * with another answer or a cancel re-reads and decides again.
 */
export class RequestAnswers {
  constructor(
    private readonly bus: Bus,
    private readonly catalog: WorkflowCatalogRepository,
    private readonly agents: AgentCatalogRepository,
    private readonly projectionWaitMs: number,
    private readonly files: Pick<FileLibrary, 'resolve'>,
  ) {}

  async answer(caller: Principal, runId: string, requestId: string, asked: AnswerBody): Promise<AnswerOutcome> {
    if (!isRunId(runId)) throw new SpindleError('run_not_found', `no run with id "${runId}"`);
    // A file in the answer's data enters the log as the tenant's reference (the run's ownership was checked before).
    const body = asked.data === undefined ? asked : { ...asked, data: await this.files.resolve(caller.tenant, asked.data, 'data') };
    const upgrade = body.definitionVersion === undefined ? undefined : await this.upgradeTo(caller.tenant, runId, body.definitionVersion);
    const { seq, appended, events } = await appendToWaitingRun(this.bus, runId, (log) =>
      decideAnswer(log, requestId, body, caller.actor, upgrade),
    );
    if (appended) return { runId, requestId, status: 'recorded', seq };
    // The same answer again: point at the one that was recorded.
    return { runId, requestId, status: 'unchanged', seq: requestsInLog(events).get(requestId)?.answers[0]?.seq ?? seq };
  }

  list(filter: {
    tenant: string;
    status?: string;
    runId?: string;
    waitForSeq?: number;
    limit?: number;
    cursor?: string;
  }): Promise<ApprovalQueryResults['listRequests']> {
    return query<ApprovalQueryResults['listRequests']>(this.bus, 'approval', 'listRequests', filter, this.projectionWaitMs + 5_000);
  }

  /** The tenant's pending requests by age, for the overview. */
  pendingAges(filter: { tenant: string; workflow?: string }): Promise<ApprovalQueryResults['pendingAges']> {
    return query<ApprovalQueryResults['pendingAges']>(this.bus, 'approval', 'pendingAges', filter, this.projectionWaitMs + 5_000);
  }

  /** The named catalog version, if its graph has the structure the run was checkpointed with. */
  private async upgradeTo(tenant: string, runId: string, version: number): Promise<DefinitionUpgrade> {
    const { events } = await readRunLog(this.bus, runId);
    const queued = events[0];
    if (queued?.type !== 'run.queued') throw new SpindleError('run_not_found', `no run with id "${runId}"`);
    const stored = await this.catalog.find(tenant, queued.data.workflow.name, version);
    if (!stored) throw new SpindleError('version_not_found', `workflow "${queued.data.workflow.name}" has no version ${version}`);
    // Resolved as the run's start was, with its parameters: a pin holds (a `{ ref }` with no version takes the latest now).
    const definition = validateDefinition(await resolveAgentRefs(this.agents, tenant, stored.definition, queued.data.parameters ?? {}));
    const expected = runningGraphHash(events);
    if (graphStructureHash(definition) !== expected) {
      throw new SpindleError(
        'definition_mismatch',
        `version ${version} of "${queued.data.workflow.name}" has a different graph structure (node ids, types or edges) ` +
          'than the one this run was checkpointed with; it cannot resume on it',
        {
          issues: [{ field: 'definitionVersion', message: "graph structure differs from the run's checkpoint" }],
        },
      );
    }
    return { definitionVersion: version, definition };
  }
}

/** The structure hash of the graph the run executes: its latest checkpoint's, else its definition's. */
function runningGraphHash(events: readonly RunEvent[]): string {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e.type === 'checkpoint.saved') return e.data.graphHash;
  }
  const queued = events[0] as Extract<RunEvent, { type: 'run.queued' }>;
  return graphStructureHash(validateDefinition(queued.data.definition));
}
