import { Body, Controller, Delete, Get, Inject, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import {
  addDatasetItemsBodySchema,
  datasetItemsQuerySchema,
  datasetVersionQuerySchema,
  datasetSaveBodySchema,
  parseBody,
  type Principal,
} from '@spindle/contracts';
import { DatasetRepository, draftItems, runForItemFromLog } from '@spindle/control-plane';
import { BUS } from '@spindle/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DatasetItemIdParam, DatasetNameParam, NewDatasetNameParam } from '../http/path-params';
import { refuseNulCharacters } from '../http/storable-json';
import { AuditTrail } from '../identity/audit-trail';
import { Caller } from '../identity/caller.decorator';

/** A tenant's datasets: versioned items to run a workflow over and judge. */
@Controller('v1/datasets')
export class DatasetsController {
  constructor(
    private readonly datasets: DatasetRepository,
    private readonly audit: AuditTrail,
    @Inject(BUS) private readonly bus: Bus,
  ) {}

  @Get()
  async list(@Caller() caller: Principal) {
    return { datasets: await this.datasets.list(caller.tenant) };
  }

  /** `201` when it is new, `200` when its description changed. */
  @Put(':name')
  async save(
    @Caller() caller: Principal,
    @Param('name', NewDatasetNameParam) name: string,
    @Body() body: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    refuseNulCharacters(body);
    const { description } = parseBody(datasetSaveBodySchema, body ?? {});
    const { dataset, created } = await this.datasets.save(caller.tenant, name, description, caller.actor);
    await this.audit.record(caller, req, { action: 'dataset.saved', target: { kind: 'dataset', id: name }, detail: { created } });
    return reply.status(created ? 201 : 200).send(dataset);
  }

  @Get(':name')
  get(@Caller() caller: Principal, @Param('name', DatasetNameParam) name: string, @Query() query: unknown) {
    const { version } = parseBody(datasetVersionQuerySchema, query, 'query');
    return this.datasets.get(caller.tenant, name, version);
  }

  @Delete(':name')
  async delete(
    @Caller() caller: Principal,
    @Param('name', DatasetNameParam) name: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    await this.datasets.delete(caller.tenant, name);
    await this.audit.record(caller, req, { action: 'dataset.deleted', target: { kind: 'dataset', id: name } });
    return reply.status(204).send();
  }

  /** All the request's items in one new version, or none (a missing run, an item too large). */
  @Post(':name/items')
  async add(
    @Caller() caller: Principal,
    @Param('name', DatasetNameParam) name: string,
    @Body() body: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    refuseNulCharacters(body);
    const asked = parseBody(addDatasetItemsBodySchema, body);
    await this.datasets.get(caller.tenant, name);
    const drafts = await draftItems(caller.tenant, asked, runForItemFromLog(this.bus));
    const added = await this.datasets.add(caller.tenant, name, drafts);
    await this.audit.record(caller, req, {
      action: 'dataset.items_added',
      target: { kind: 'dataset', id: name },
      detail: { version: added.version, items: added.itemIds.length },
    });
    return reply.status(201).send(added);
  }

  @Get(':name/items')
  items(@Caller() caller: Principal, @Param('name', DatasetNameParam) name: string, @Query() query: unknown) {
    const { version, limit, cursor } = parseBody(datasetItemsQuerySchema, query, 'query');
    return this.datasets.items(caller.tenant, name, { version, limit, after: cursor });
  }

  /** Removes the item from the next version on; earlier versions keep it. */
  @Delete(':name/items/:itemId')
  async remove(
    @Caller() caller: Principal,
    @Param('name', DatasetNameParam) name: string,
    @Param('itemId', DatasetItemIdParam) itemId: string,
    @Req() req: FastifyRequest,
  ) {
    const removed = await this.datasets.remove(caller.tenant, name, itemId);
    await this.audit.record(caller, req, {
      action: 'dataset.item_removed',
      target: { kind: 'dataset', id: name },
      detail: { itemId, version: removed.version },
    });
    return removed;
  }
}
