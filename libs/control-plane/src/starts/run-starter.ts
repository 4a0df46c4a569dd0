import { randomBytes } from 'node:crypto';
import type { Context } from '@opentelemetry/api';
import { EMPTY_LOG, firstEventOf, RunLogWriter, type Bus } from '@spindle/bus';
import type { Logger } from '@spindle/telemetry';
import {
  isSpindleError,
  describeIssues,
  parseBody,
  SpindleError,
  startRunBodySchema,
  type Principal,
  type RunAccepted,
  type RunEventOf,
  type StartRunBody,
} from '@spindle/contracts';
import { compileJsonSchema, validateDefinition } from '@spindle/engine';
import { ulid } from 'ulid';
import { queueForAdmission } from '../admission/queue-for-admission';
import type { RunAdmission } from '../admission/run-admission';
import type { StartQuotas } from '../admission/start-quotas';
import type { AgentCatalogRepository } from '../catalogs/agent-catalog.repository';
import { resolveAgentRefs } from '../catalogs/agent-refs.resolver';
import { resolveSubgraphs } from '../catalogs/subgraph-resolver';
import type { WorkflowCatalogRepository } from '../catalogs/workflow-catalog.repository';
import type { WebhookRepository } from '../webhooks/webhook.repository';
import type { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { createOnce, requestHash, type Created } from './idempotent-creation';

/** `replayed` when an Idempotency-Key named a run started before; nothing new was queued. */
export type StartedRun = Created<RunAccepted>;

export interface StartOptions {
  /** Runs once `run.queued` is in the log, before the run is handed to the admission (an SSE start attaches here). */
  beforeDispatch?: (runId: string) => Promise<void>;
  /** The thread the run goes on: `run.queued` names it. */
  thread?: RunEventOf<'run.queued'>['data']['thread'];
  /** The schedule firing that starts it: `run.queued` names it. */
  scheduledBy?: RunEventOf<'run.queued'>['data']['scheduledBy'];
  /** The run's id, when the caller chose it beforehand (a thread's enqueued run keeps the id it was given). */
  runId?: string;
  /** The recorded run it replays: `run.queued` names it, and the runner answers calls from its log. */
  replayOf?: RunEventOf<'run.queued'>['data']['replayOf'];
  /** The evaluation a judge's run makes: `run.queued` names it, and the run is never judged itself. */
  evaluates?: RunEventOf<'run.queued'>['data']['evaluates'];
}

/** What a start reads and writes: the catalogs, the keys, the quotas and the admission. */
export interface RunStarterDeps {
  readonly bus: Bus;
  readonly catalog: WorkflowCatalogRepository;
  readonly agents: AgentCatalogRepository;
  readonly keys: IdempotencyKeysRepository;
  readonly admission: RunAdmission;
  readonly quotas: StartQuotas;
  readonly logger: Logger;
  readonly maxEventBytes?: number;
  /** Refuses (404) webhook ids the caller's tenant has not (the subscriptions a run names). */
  readonly webhooks: Pick<WebhookRepository, 'requireAll'>;
  /** Resolves the file parts of a start's input and state into the tenant's file references (`404 file_not_found`). */
  readonly files: { resolve(tenant: string, value: unknown, root: string): Promise<unknown> };
  /** Told whose each queued run is, so the reads that follow a start need not ask the log (the gateway's run ownership). */
  readonly owners?: { remember(runId: string, tenant: string): void };
}

/**
 * Starts a run: checks everything first (body, workflow, version, idempotency key), then
 * appends `run.queued` (seq 1) and queues the start command. Nothing is stored or queued for a
 * request that is refused.
 */
export class RunStarter {
  constructor(private readonly deps: RunStarterDeps) {}

  async start(
    caller: Principal,
    name: string,
    rawBody: unknown,
    idempotencyKey: string | undefined,
    trace: Context,
    opts: StartOptions = {},
  ): Promise<StartedRun> {
    const asked = parseBody(startRunBodySchema, rawBody ?? {});
    const { tenant } = caller;
    const body = await this.withFileRefs(tenant, asked);
    const planned = await this.plan(tenant, name, body);
    const runId = opts.runId ?? ulid();
    const accepted: RunAccepted = {
      runId,
      workflow: { name, version: planned.version },
      status: 'queued',
      location: `/v1/runs/${runId}`,
      eventsLocation: `/v1/runs/${runId}/events`,
    };
    const runQueued = async (id: string) => (await firstEventOf(this.deps.bus, id)) !== undefined;

    return createOnce(
      this.deps.keys,
      runQueued,
      tenant,
      idempotencyKey,
      // The request as asked: a retry with the same body is the same request, whatever its files resolve to now.
      { hash: requestHash(name, asked), runId, accepted },
      async (target) => {
        // Completing a key's orphaned run: it runs the version the key answered, which a newer one may have followed.
        const version = target.accepted.workflow.version;
        const run = version === planned.version ? planned : await this.plan(tenant, name, { ...body, version });
        // Inside: a retry answered from its Idempotency-Key starts nothing, so it takes no quota.
        await this.deps.quotas.admitStart(tenant);
        try {
          const log = new RunLogWriter(this.deps.bus, target.runId, EMPTY_LOG, {
            traceContext: () => trace,
            maxEventBytes: this.deps.maxEventBytes,
          });
          await log.write({
            type: 'run.queued',
            spanId: randomBytes(8).toString('hex'),
            path: 'root',
            data: {
              workflow: { name, version: run.version },
              input: body.input ?? null,
              state: { ...(body.state ?? {}), input: body.input ?? null, ...(run.parameters ? { parameters: run.parameters } : {}) },
              ...(run.parameters ? { parameters: run.parameters } : {}),
              definition: run.definition,
              ...(Object.keys(run.subgraphs).length ? { subgraphs: run.subgraphs } : {}),
              tenant,
              startedBy: caller.actor,
              ...(opts.thread ? { thread: opts.thread } : {}),
              ...(opts.scheduledBy ? { scheduledBy: opts.scheduledBy } : {}),
              ...(opts.replayOf ? { replayOf: opts.replayOf } : {}),
              ...(opts.evaluates ? { evaluates: opts.evaluates } : {}),
              ...(body.webhooks?.length ? { webhooks: [...new Set(body.webhooks)] } : {}),
            },
          });
          this.deps.owners?.remember(target.runId, tenant);
          await opts.beforeDispatch?.(target.runId);
        } catch (e) {
          // A full store is said as such (507, Retry-After): waiting a moment, as a 503 suggests, does not help.
          if (isSpindleError(e) && e.code === 'storage_full') throw e;
          throw new SpindleError('service_unavailable', `could not queue the run: ${(e as Error).message}`, { cause: e });
        }
        await queueForAdmission(this.deps.admission, { runId: target.runId, tenant, trace }, this.deps.logger);
      },
    );
  }

  /**
   * Everything `start` checks before it stores anything (body, files, workflow, version,
   * parameters), without starting: a batch checks every start first, so it starts all or none.
   */
  async check(caller: Principal, name: string, rawBody: unknown): Promise<{ version: number }> {
    const body = await this.withFileRefs(caller.tenant, parseBody(startRunBodySchema, rawBody ?? {}));
    return { version: (await this.plan(caller.tenant, name, body)).version };
  }

  /** The body with every file part of its input and state replaced by the tenant's file reference. */
  private async withFileRefs(tenant: string, body: StartRunBody): Promise<StartRunBody> {
    const files = this.deps.files;
    const input = body.input === undefined ? undefined : await files.resolve(tenant, body.input, 'input');
    const state = body.state === undefined ? undefined : ((await files.resolve(tenant, body.state, 'state')) as StartRunBody['state']);
    return { ...body, ...(input !== undefined && { input }), ...(state !== undefined && { state }) };
  }

  /** Everything a start checks and resolves before anything is stored: the workflow version, its definition, parameters, subgraphs. */
  private async plan(tenant: string, name: string, body: StartRunBody) {
    const workflow = await this.deps.catalog.find(tenant, name, body.version);
    if (!workflow) {
      if (body.version !== undefined && (await this.deps.catalog.find(tenant, name)))
        throw new SpindleError('version_not_found', `workflow "${name}" has no version ${body.version}`);
      throw new SpindleError('workflow_not_found', `no workflow named "${name}"`);
    }
    // Its parameters first: one may choose an agent's version (agent-pins.ts). The stored definition was validated at save.
    const parameters = checkParameters(declaredParameters(workflow.definition), body.parameters);
    // The run embeds the definition with agent references resolved: catalog edits never reach it, nor its resumes.
    const definition = validateDefinition(await resolveAgentRefs(this.deps.agents, tenant, workflow.definition, parameters ?? {}));
    if (body.webhooks?.length) await this.deps.webhooks.requireAll(tenant, body.webhooks);
    // A subgraph has no run parameters of its own here: its pins take their parameters' defaults.
    const prepare = (stored: unknown) => resolveAgentRefs(this.deps.agents, tenant, stored);
    const subgraphs = await resolveSubgraphs(this.deps.catalog, tenant, { name, definition }, prepare);
    return { version: workflow.version, definition, parameters, subgraphs };
  }
}

/** The parameter schema a stored definition declares (any kind declares it in the same place). */
function declaredParameters(stored: unknown): Record<string, unknown> | undefined {
  const parameters = (stored as { parameters?: unknown } | null)?.parameters;
  return typeof parameters === 'object' && parameters !== null ? (parameters as Record<string, unknown>) : undefined;
}

/** Parameters checked against the workflow's schema (defaults filled in); refused with every bad field named. */
function checkParameters(
  schema: Record<string, unknown> | undefined,
  given: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!schema) return given;
  const result = compileJsonSchema(schema, 'parameters')(given ?? {});
  if (result.ok) return result.value as Record<string, unknown>;
  throw new SpindleError('validation_failed', `parameters do not fit the workflow's schema: ${describeIssues(result.issues)}`, {
    issues: result.issues,
  });
}
