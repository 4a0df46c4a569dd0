import { Controller, Get, Query } from '@nestjs/common';
import { overviewQuerySchema, type Overview, type Principal, parseBody } from '@spindle/contracts';
import { Caller } from '../identity/caller.decorator';
import { RequestAnswers } from '../requests/request-answers.service';
import { RunReads } from '../runs/run-reads.service';

const DAY_MS = 86_400_000;

/** The overview dashboards: the trace recorder's figures of the tenant's runs and the approval service's open requests, asked at once. */
@Controller('v1')
export class OverviewController {
  constructor(
    private readonly reads: RunReads,
    private readonly answers: RequestAnswers,
  ) {}

  @Get('overview')
  async overview(@Caller() caller: Principal, @Query() query: unknown): Promise<Overview> {
    const { workflow, days } = parseBody(overviewQuerySchema, query, 'query');
    const now = new Date();
    // From the start of the UTC day `days - 1` days ago: today is the window's last day.
    const from = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - (days - 1) * DAY_MS).toISOString();
    const [runs, pendingRequests] = await Promise.all([
      this.reads.overview({ tenant: caller.tenant, workflow, from }),
      this.answers.pendingAges({ tenant: caller.tenant, workflow }),
    ]);
    return { workflow: workflow ?? null, days, from, to: now.toISOString(), ...runs, pendingRequests };
  }
}
