import type { ServerResponse } from 'node:http';
import type { BeforeApplicationShutdown } from '@nestjs/common';
import { SpindleError, type Principal } from '@spindle/contracts';
import { Counter, Gauge, type Registry } from 'prom-client';
import { admitStream, type StreamLimits } from './stream-limits';

interface OpenStream {
  readonly key: string;
  readonly tenant: string;
  /** Ends the stream on our side (shutdown). */
  readonly close: () => void;
}

/**
 * Every event stream this gateway is writing (a run's events, and the AG-UI, A2A, MCP and chat
 * protocols' streams), counted per principal and per tenant against `StreamLimits`. A slot is
 * taken before anything is started and given back when the response closes, which Node reports
 * on every way a stream ends: the client leaving, the stream's own end, an error, a shutdown.
 * On shutdown every stream is ended, so the process can exit and clients reconnect (with
 * Last-Event-ID) to another gateway without losing an event.
 */
export class OpenStreamsRegistry implements BeforeApplicationShutdown {
  private readonly open = new Set<OpenStream>();
  private readonly byKey = new Map<string, number>();
  private readonly byTenant = new Map<string, number>();
  private readonly refused: Counter<'tenant' | 'limit'>;

  constructor(
    private readonly limits: StreamLimits,
    registry: Registry,
  ) {
    const { open, byTenant } = this;
    new Gauge({
      name: 'spindle_sse_clients',
      help: 'Server-sent event streams this gateway is writing now.',
      registers: [registry],
      collect() {
        this.set(open.size);
      },
    });
    new Gauge({
      name: 'spindle_open_streams',
      help: 'Event streams this gateway is writing now, by tenant (limited per key and per tenant).',
      labelNames: ['tenant'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [tenant, count] of byTenant) this.set({ tenant }, count);
      },
    });
    this.refused = new Counter({
      name: 'spindle_streams_refused_total',
      help: 'Event streams refused with 429 too_many_streams, by tenant and by the limit reached (key or tenant).',
      labelNames: ['tenant', 'limit'],
      registers: [registry],
    });
  }

  /**
   * Takes a slot for a stream answered on `res`, or refuses with `429 too_many_streams`. Call it
   * before the stream starts anything (a run), so a refusal leaves nothing behind.
   */
  admit(caller: Principal, res: ServerResponse, close: () => void): void {
    const key = `${caller.actor.kind}:${caller.actor.id}`;
    const tenant = caller.tenant;
    const decision = admitStream({ key: this.byKey.get(key) ?? 0, tenant: this.byTenant.get(tenant) ?? 0 }, this.limits);
    if (!decision.admit) {
      this.refused.inc({ tenant, limit: decision.limit });
      const whose = decision.limit === 'key' ? 'this credential' : `tenant ${tenant}`;
      throw new SpindleError(
        'too_many_streams',
        `${whose} has ${decision.max} event streams open, the most it may; close one or retry later`,
        {
          retryAfterSec: decision.retryAfterSec,
        },
      );
    }
    const stream: OpenStream = { key, tenant, close };
    this.open.add(stream);
    bump(this.byKey, key, 1);
    bump(this.byTenant, tenant, 1);
    if (res.closed) this.release(stream);
    else res.once('close', () => this.release(stream));
  }

  /** What `key` (a principal) and `tenant` hold now. */
  countOf(caller: Principal): { key: number; tenant: number } {
    return { key: this.byKey.get(`${caller.actor.kind}:${caller.actor.id}`) ?? 0, tenant: this.byTenant.get(caller.tenant) ?? 0 };
  }

  beforeApplicationShutdown() {
    for (const stream of this.open) stream.close();
  }

  private release(stream: OpenStream) {
    if (!this.open.delete(stream)) return;
    bump(this.byKey, stream.key, -1);
    bump(this.byTenant, stream.tenant, -1);
  }
}

function bump(counts: Map<string, number>, name: string, by: number) {
  const next = (counts.get(name) ?? 0) + by;
  if (next > 0) counts.set(name, next);
  else counts.delete(name);
}
