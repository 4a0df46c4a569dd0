import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Put, Req, Res } from '@nestjs/common';
import { query, type Bus } from '@spindle/bus';
import {
  parseBody,
  scoreConfigBodySchema,
  scoreSettingsBodySchema,
  SpindleError,
  type Principal,
  type ScoreConfigQueryResults,
} from '@spindle/contracts';
import { BUS } from '@spindle/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import type { GatewayConfig } from '../gateway.config';
import { NewScoreNameParam, ScoreNameParam } from '../http/path-params';
import { refuseNulCharacters } from '../http/storable-json';
import { AuditTrail } from '../identity/audit-trail';
import { Caller } from '../identity/caller.decorator';

/**
 * Score configs: what a tenant's score of a name must be, and whether every name needs one. The
 * trace recorder keeps them beside the scores and checks each score against them as it stores it.
 */
@Controller('v1')
export class ScoreConfigsController {
  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly audit: AuditTrail,
  ) {}

  @Get('score-configs')
  list(@Caller() caller: Principal) {
    return this.ask('listScoreConfigs', { tenant: caller.tenant });
  }

  /** `201` for a new name, `200` for a changed one; scores already stored are left as they are. */
  @Put('score-configs/:name')
  async put(
    @Caller() caller: Principal,
    @Param('name', NewScoreNameParam) name: string,
    @Body() body: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    // Kept in Postgres text and jsonb, which cannot hold U+0000 or half a surrogate pair.
    refuseNulCharacters(body);
    const config = parseBody(scoreConfigBodySchema, body);
    const saved = await this.ask('putScoreConfig', { tenant: caller.tenant, name, config });
    await this.audit.record(caller, req, { action: 'score_config.saved', target: { kind: 'score_config', id: name }, detail: config });
    return reply.status(saved.created ? 201 : 200).send(saved.config);
  }

  @Delete('score-configs/:name')
  @HttpCode(204)
  async delete(@Caller() caller: Principal, @Param('name', ScoreNameParam) name: string, @Req() req: FastifyRequest) {
    const { deleted } = await this.ask('deleteScoreConfig', { tenant: caller.tenant, name });
    if (!deleted) throw new SpindleError('not_found', `no score config named "${name}"`);
    await this.audit.record(caller, req, { action: 'score_config.deleted', target: { kind: 'score_config', id: name } });
  }

  /** `strict: true` refuses a score whose name no config declares, from people, keys and evaluators alike. */
  @Put('score-settings')
  async settings(@Caller() caller: Principal, @Body() body: unknown, @Req() req: FastifyRequest) {
    const { strict } = parseBody(scoreSettingsBodySchema, body);
    const settings = await this.ask('setScoreSettings', { tenant: caller.tenant, strict });
    await this.audit.record(caller, req, {
      action: 'score_settings.changed',
      target: { kind: 'tenant', id: caller.tenant },
      detail: settings,
    });
    return settings;
  }

  private ask<Op extends keyof ScoreConfigQueryResults>(op: Op, payload: unknown): Promise<ScoreConfigQueryResults[Op]> {
    return query<ScoreConfigQueryResults[Op]>(this.bus, 'trace', op, payload, this.config.projectionWaitMs + 5_000);
  }
}
