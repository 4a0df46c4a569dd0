import { lastEventOf, type Bus } from '@spindle/bus';
import { isTerminalEvent } from '@spindle/contracts';
import { readSse } from '@spindle/testing';

/** The soak's mix: model chains, forks, a tool loop, a loop, and a person's review it answers. */
export const SOAK_WORKFLOWS = ['chaos-chain', 'chaos-fork', 'chaos-agent', 'chaos-loop', 'chaos-review'];

/**
 * Drives one soak run to its end through the public API: starts it, follows it over SSE (one run
 * in three) or polls its log's tail, answers its review, cancels one run in twenty.
 */
export class SoakDriver {
  /** Runs that had not ended 5 minutes after their start, with their last event then: the soak goes on without them. */
  readonly unended: Array<{ runId: string; last?: string }> = [];

  constructor(
    private readonly gatewayUrl: string,
    private readonly auth: Record<string, string>,
    private readonly bus: Bus,
    private readonly tagPrefix: string,
  ) {}

  async drive(i: number): Promise<void> {
    const workflow = SOAK_WORKFLOWS[i % SOAK_WORKFLOWS.length];
    const tag = `${this.tagPrefix}-${i}`;
    const { runId } = (await this.call('POST', `/v1/workflows/${workflow}/runs`, { input: { tag } }, [202])) as { runId: string };
    const follower = i % 3 === 0 ? readSse(`${this.gatewayUrl}/v1/runs/${runId}/events`, { headers: this.auth }) : undefined;
    if (i % 20 === 7) await this.call('POST', `/v1/runs/${runId}/cancel`, { reason: 'soak' }, [200, 202, 409]);
    // A follower of a run that never ended would wait for ever.
    if (await this.settle(runId)) await follower;
  }

  /** Polls the run's last event until it ends; answers a pending review on the way. */
  private async settle(runId: string): Promise<boolean> {
    const deadline = Date.now() + 300_000;
    let last: Awaited<ReturnType<typeof lastEventOf>>;
    while (Date.now() < deadline) {
      last = await lastEventOf(this.bus, runId);
      if (last && isTerminalEvent(last.event)) return true;
      if (last?.event.type === 'run.awaiting') await this.answer(runId);
      await new Promise((r) => setTimeout(r, 100));
    }
    this.unended.push({ runId, last: last?.event.type });
    console.error(`soak: run ${runId} had not ended after 300 s (last event ${last?.event.type ?? 'none'})`);
    return false;
  }

  private async answer(runId: string): Promise<void> {
    const { requests } = (await this.call('GET', `/v1/runs/${runId}/requests`)) as {
      requests: Array<{ requestId: string; status: string }>;
    };
    const open = requests.find((r) => r.status === 'pending');
    if (open)
      await this.call(
        'POST',
        `/v1/runs/${runId}/requests/${open.requestId}/respond`,
        { approved: true, respondedBy: 'soak' },
        [200, 202, 409],
      );
  }

  private async call(method: string, path: string, body?: unknown, accept: number[] = [200]): Promise<unknown> {
    const res = await fetch(`${this.gatewayUrl}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...this.auth },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!accept.includes(res.status)) throw new Error(`soak: ${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json().catch(() => undefined);
  }
}
