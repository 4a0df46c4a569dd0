import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { experimentsCompareQuerySchema, newExperimentBodySchema, parseBody, SpindleError, type Principal } from '@spindle/contracts';
import {
  comparisonCsv,
  compareExperiments,
  DatasetRepository,
  ExperimentRepository,
  WorkflowCatalogRepository,
} from '@spindle/control-plane';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ulid } from 'ulid';
import { ExperimentIdParam } from '../http/path-params';
import { refuseNulCharacters } from '../http/storable-json';
import { AuditTrail } from '../identity/audit-trail';
import { Caller } from '../identity/caller.decorator';

/** Most items an experiment runs: a larger dataset is run a version (or a filtered copy) at a time. */
const MAX_EXPERIMENT_ITEMS = 10_000;

/** Experiments: a dataset version run through a workflow version, judged, compared item by item. */
@Controller('v1/experiments')
export class ExperimentsController {
  constructor(
    private readonly experiments: ExperimentRepository,
    private readonly datasets: DatasetRepository,
    private readonly catalog: WorkflowCatalogRepository,
    private readonly audit: AuditTrail,
  ) {}

  /** `201` once its items are copied; the dispatcher starts their runs (`concurrency` at once). */
  @Post()
  async create(@Caller() caller: Principal, @Body() body: unknown, @Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    refuseNulCharacters(body);
    const asked = parseBody(newExperimentBodySchema, body);
    const workflow = await this.catalog.find(caller.tenant, asked.workflow, asked.version);
    if (!workflow) {
      const exists = asked.version !== undefined && (await this.catalog.find(caller.tenant, asked.workflow));
      throw new SpindleError(
        exists ? 'version_not_found' : 'workflow_not_found',
        `no ${asked.version ? `version ${asked.version} of ` : ''}workflow "${asked.workflow}"`,
      );
    }
    const dataset = await this.datasets.get(caller.tenant, asked.dataset, asked.datasetVersion);
    const version = asked.datasetVersion ?? dataset.version;
    const items = await this.allItems(caller.tenant, asked.dataset, version);
    if (items.length === 0) {
      throw new SpindleError('conflict', `dataset "${asked.dataset}" version ${version} has no items to run`, {
        issues: [{ field: 'dataset', message: 'no items' }],
      });
    }
    const experimentId = `exp_${ulid()}`;
    await this.experiments.create({
      experimentId,
      tenant: caller.tenant,
      caller,
      name: asked.name ?? null,
      dataset: { name: asked.dataset, version },
      workflow: { name: workflow.name, version: workflow.version },
      parameters: asked.parameters ?? null,
      evaluators: asked.evaluators ?? [],
      concurrency: asked.concurrency,
      maxCostUsd: asked.maxCostUsd ?? null,
      items,
    });
    await this.audit.record(caller, req, {
      action: 'experiment.started',
      target: { kind: 'experiment', id: experimentId },
      detail: { dataset: asked.dataset, datasetVersion: version, workflow: workflow.name, version: workflow.version, items: items.length },
    });
    return reply
      .status(201)
      .header('location', `/v1/experiments/${experimentId}`)
      .send(await this.experiments.get(caller.tenant, experimentId));
  }

  @Get()
  async list(@Caller() caller: Principal) {
    return { experiments: await this.experiments.list(caller.tenant) };
  }

  /** `?ids=a,b`: the experiments over one dataset item by item; `format=csv` as CSV. */
  @Get('compare')
  async compare(@Caller() caller: Principal, @Query() query: unknown, @Res() reply: FastifyReply) {
    const { ids, format } = parseBody(experimentsCompareQuerySchema, query, 'query');
    const runs = await Promise.all(
      ids.map(async (id) => ({
        experiment: await this.experiments.get(caller.tenant, id),
        items: await this.experiments.items(caller.tenant, id),
      })),
    );
    const comparison = compareExperiments(runs);
    if (format === 'csv') return reply.header('content-type', 'text/csv; charset=utf-8').send(comparisonCsv(comparison));
    return reply.send(comparison);
  }

  @Get(':experimentId')
  get(@Caller() caller: Principal, @Param('experimentId', ExperimentIdParam) id: string) {
    return this.experiments.get(caller.tenant, id);
  }

  @Get(':experimentId/items')
  async items(@Caller() caller: Principal, @Param('experimentId', ExperimentIdParam) id: string) {
    return { items: await this.experiments.items(caller.tenant, id) };
  }

  /** Starts nothing more: pending items are skipped, running ones end as they will. `409` once it has ended. */
  @Post(':experimentId/cancel')
  @HttpCode(200)
  async cancel(@Caller() caller: Principal, @Param('experimentId', ExperimentIdParam) id: string, @Req() req: FastifyRequest) {
    const experiment = await this.experiments.cancel(caller.tenant, id, caller.actor);
    await this.audit.record(caller, req, { action: 'experiment.canceled', target: { kind: 'experiment', id } });
    return experiment;
  }

  private async allItems(tenant: string, dataset: string, version: number) {
    const items: Array<{ itemId: string; input: unknown; expected: unknown }> = [];
    let cursor: string | undefined;
    do {
      const page = await this.datasets.items(tenant, dataset, { version, limit: 1_000, after: cursor });
      items.push(...page.items.map((i) => ({ itemId: i.itemId, input: i.input, expected: i.expected })));
      cursor = page.nextCursor ?? undefined;
      if (items.length > MAX_EXPERIMENT_ITEMS) {
        throw new SpindleError(
          'payload_too_large',
          `an experiment runs at most ${MAX_EXPERIMENT_ITEMS} items; the dataset version has more`,
          {
            issues: [{ field: 'dataset', message: `more than ${MAX_EXPERIMENT_ITEMS} items` }],
          },
        );
      }
    } while (cursor);
    return items;
  }
}
