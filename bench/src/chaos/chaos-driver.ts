import { setTimeout as sleep } from 'node:timers/promises';
import { lastEventOf, type Bus } from '@spindle/bus';
import { isTerminalEvent } from '@spindle/contracts';

/** A run the driver started, and what it means to do with it. */
export interface DrivenRun {
  runId: string;
  workflow: string;
  tag: string;
  startedAt: number;
  /** A review run the driver answers (the others stay waiting, legitimately). */
  answer: boolean;
  answered: boolean;
  /** Canceled by the driver shortly after it started. */
  cancel: boolean;
  /** A fork of another run (from its first checkpoint). */
  forkOf?: string;
  settled: boolean;
}

const WORKFLOWS = ['chaos-chain', 'chaos-fork', 'chaos-agent', 'chaos-review', 'chaos-loop'];

/**
 * The load of a chaos run, through the public HTTP API only: keeps a number of runs going at
 * once (a mix of model chains, forks, tool loops, loops and runs that wait for a person),
 * answers most people-waits, cancels some runs, forks some finished ones. Every call retries
 * while the gateway is down; starts and forks carry an Idempotency-Key, so a retry never starts
 * a run twice.
 */
export class ChaosDriver {
  readonly runs = new Map<string, DrivenRun>();
  private next = 0;
  private stopped = false;
  private loop?: Promise<void>;

  constructor(
    private readonly gatewayUrl: string,
    private readonly auth: Record<string, string>,
    private readonly bus: Bus,
    private readonly opts: { total: number; concurrency: number; seed: string },
  ) {}

  start(): void {
    this.loop = this.drive();
  }

  /** Stops starting runs; answers, cancels and settles go on until `settle` is done. */
  async stopStarting(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  /** More runs for the load, so it goes on through the next round. */
  addLoad(runs: number): void {
    this.opts.total += runs;
  }

  /** Whether every run of the load so far has been started. */
  get loadStarted(): boolean {
    return this.next >= this.opts.total;
  }

  get startedCount(): number {
    return this.runs.size;
  }

  /** Runs started and neither ended nor waiting for a person, as of the last look. */
  inFlight(): DrivenRun[] {
    return [...this.runs.values()].filter((r) => !r.settled);
  }

  /** Waits (bounded) until every run has ended or legitimately waits; answers and cancels meanwhile. */
  async settle(deadlineMs: number): Promise<boolean> {
    const deadline = Date.now() + deadlineMs;
    while (Date.now() < deadline) {
      await this.tick();
      if (this.inFlight().length === 0) return true;
      await sleep(500);
    }
    return false;
  }

  /** Starts runs up to `total`; answers, cancels and marks settled runs until stopped (rounds start runs of their own). */
  private async drive(): Promise<void> {
    while (!this.stopped) {
      if (this.next < this.opts.total && this.inFlight().length < this.opts.concurrency) await this.startNext();
      else await this.tick();
      await sleep(100);
    }
  }

  private async startNext(): Promise<void> {
    const i = this.next++;
    const workflow = WORKFLOWS[i % WORKFLOWS.length];
    await this.startRun(workflow, `${this.opts.seed}-${i}`, {
      answer: workflow === 'chaos-review' && i % 3 !== 0,
      cancel: workflow === 'chaos-chain' && i % 4 === 0,
    });
  }

  /** Starts one run (keyed by its tag) besides the load, for a round of its own; it is settled and checked with the others. */
  async startRun(workflow: string, tag: string, flags: { answer?: boolean; cancel?: boolean } = {}): Promise<DrivenRun> {
    const res = await this.call('POST', `/v1/workflows/${workflow}/runs`, { input: { tag } }, { 'idempotency-key': tag });
    const { runId } = (await res.json()) as { runId: string };
    return this.adopt({ runId, workflow, tag, answer: flags.answer ?? false, cancel: flags.cancel ?? false });
  }

  /** A run started elsewhere (another gateway, say), settled and checked with the others. */
  adopt(run: Pick<DrivenRun, 'runId' | 'workflow' | 'tag' | 'answer' | 'cancel' | 'forkOf'>): DrivenRun {
    const driven: DrivenRun = { ...run, startedAt: Date.now(), answered: false, settled: false };
    this.runs.set(run.runId, driven);
    return driven;
  }

  /** One pass over unsettled runs: cancel, answer, fork, and mark what has settled. */
  private async tick(): Promise<void> {
    for (const run of this.inFlight()) {
      const last = await lastEventOf(this.bus, run.runId).catch(() => undefined);
      if (!last) continue;
      if (isTerminalEvent(last.event)) {
        run.settled = true;
        // Every other chain run that completes is forked from its first checkpoint.
        if (
          last.event.type === 'run.completed' &&
          run.workflow === 'chaos-chain' &&
          !run.forkOf &&
          Number(run.tag.split('-').at(-1)) % 10 === 5
        )
          await this.fork(run);
        continue;
      }
      if (run.cancel && Date.now() - run.startedAt > 300) {
        // 409: it finished first.
        await this.call('POST', `/v1/runs/${run.runId}/cancel`, { reason: 'chaos' }, {}, [409]);
        run.cancel = false;
      }
      if (last.event.type === 'run.awaiting') {
        if (!run.answer || run.answered) run.settled = !run.answer;
        else await this.answer(run);
      }
    }
  }

  private async answer(run: DrivenRun): Promise<void> {
    const res = await this.call('GET', `/v1/runs/${run.runId}/requests`);
    const { requests } = (await res.json()) as { requests: Array<{ requestId: string; status: string }> };
    const open = requests.find((r) => r.status === 'pending');
    if (!open) return;
    const answered = await this.call(
      'POST',
      `/v1/runs/${run.runId}/requests/${open.requestId}/respond`,
      { approved: true, respondedBy: 'chaos' },
      {},
      [409],
    );
    if (answered.status < 300) run.answered = true;
  }

  private async fork(source: DrivenRun): Promise<void> {
    const tag = `${source.tag}-fork`;
    const res = await this.call(
      'POST',
      `/v1/runs/${source.runId}/fork`,
      { checkpointId: 'cp-1', state: { input: { tag } } },
      { 'idempotency-key': tag },
    );
    const { runId } = (await res.json()) as { runId: string };
    this.adopt({ runId, workflow: source.workflow, tag, answer: false, cancel: false, forkOf: source.runId });
  }

  /** An HTTP call that waits out a gateway restart (connection refused, 503) or a full store (507), bounded. */
  private async call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    accept: number[] = [],
  ): Promise<Response> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        const res = await fetch(`${this.gatewayUrl}${path}`, {
          method,
          headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...this.auth, ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        if (res.status < 300 || accept.includes(res.status)) return res;
        if ((res.status !== 503 && res.status !== 507) || Date.now() > deadline)
          throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      } catch (e) {
        if (Date.now() > deadline || (e as Error).message.startsWith(`${method} ${path}`)) throw e;
      }
      await sleep(250);
    }
  }
}
