import type { JsMsg } from '@nats-io/jetstream';
import { provisionStreams, type Bus } from '@spindle/bus';
import type { RunEvent } from '@spindle/contracts';
import { referenceFold, runLogArbitrary, testNamespace, traceView, withRunId } from '@spindle/testing';
import type { TraceTables } from '@spindle/db';
import { appliedSeq, progressTables, ProjectionRunner } from '@spindle/projection-kit';
import fc from 'fast-check';
import { TraceProjection } from './trace.projection';
import { TraceRepository } from './trace.repository';
import { capturingLogger, openTraceSchema, removeStreams, testBus } from './trace-test.fixture';

const NUM_RUNS = 25;

/** How one log reaches the recorder: consecutive batches, one delivered twice, maybe two out of order. */
interface Delivery {
  cuts: number[];
  /** The batch delivered a second time, and after which later delivery (folded into range). */
  duplicate: { batch: number; after: number };
  /** Two neighbouring batches arriving in swapped order (a failed batch redelivered late). */
  swap: number | undefined;
}

const deliveryArb: fc.Arbitrary<Delivery> = fc.record({
  cuts: fc.array(fc.nat(), { maxLength: 8 }),
  duplicate: fc.record({ batch: fc.nat(), after: fc.nat() }),
  swap: fc.option(fc.nat(), { nil: undefined }),
});

/** The batches in the order they are handed to the recorder. */
function schedule(log: readonly RunEvent[], d: Delivery): RunEvent[][] {
  const at = [...new Set(d.cuts.map((c) => 1 + (c % Math.max(1, log.length - 1))))].filter((c) => c < log.length).sort((a, b) => a - b);
  const bounds = [0, ...at, log.length];
  const batches = bounds.slice(1).map((end, i) => log.slice(bounds[i], end));
  if (d.swap !== undefined && batches.length > 1) {
    const i = d.swap % (batches.length - 1);
    [batches[i], batches[i + 1]] = [batches[i + 1], batches[i]];
  }
  const dup = d.duplicate.batch % batches.length;
  const insertAt = dup + 1 + (d.duplicate.after % (batches.length - dup));
  return [...batches.slice(0, insertAt), batches[dup], ...batches.slice(insertAt)];
}

describe('trace projection against Postgres (property)', () => {
  let store: Awaited<ReturnType<typeof openTraceSchema>>;
  let repository: TraceRepository;
  let bus: Bus;
  let runner: ProjectionRunner<TraceTables>;
  let runs = 0;
  const namespace = testNamespace();

  beforeAll(async () => {
    store = await openTraceSchema(namespace);
    repository = new TraceRepository(store.db);
    bus = await testBus(namespace, 'trace-projection-property');
    await provisionStreams(bus);
    runner = new ProjectionRunner<TraceTables>(bus, store.db, new TraceProjection('trace-recorder'), capturingLogger().logger);
  });
  afterAll(async () => {
    await bus?.close();
    await removeStreams(namespace);
    await store?.drop();
  });

  /** One pulled batch as the consumer hands it over: messages of the events stream, acked after commit. */
  function messages(batch: readonly RunEvent[], acks: Map<number, number>, naks: number[]): JsMsg[] {
    return batch.map((event) => {
      const msg = {
        subject: bus.names.eventSubject(event.runId),
        data: Buffer.from(JSON.stringify(event)),
        seq: event.seq,
        info: { stream: bus.names.eventsStream },
        ack: () => void acks.set(event.seq, (acks.get(event.seq) ?? 0) + 1),
        nak: () => void naks.push(event.seq),
      };
      return msg as unknown as JsMsg;
    });
  }

  it('stores, for any valid log delivered in any batches with a batch redelivered, exactly what the reference fold reads off the log', async () => {
    await fc.assert(
      fc.asyncProperty(runLogArbitrary(), deliveryArb, async (generated, delivery) => {
        const runId = `prop-${++runs}`;
        const log = withRunId(generated, runId);
        const acks = new Map<number, number>();
        const naks: number[] = [];
        // The log is on its subject too: a runner meeting a gap fills it from there.
        for (const event of log) await bus.js.publish(bus.names.eventSubject(runId), JSON.stringify(event));
        let applied = 0;
        for (const batch of schedule(log, delivery)) {
          const result = await runner.handle(messages(batch, acks, naks));
          applied += result.applied;
        }

        // Every event stored and projected once; every message settled by an ack, none refused.
        expect(applied).toBe(log.length);
        expect(naks).toEqual([]);
        expect([...acks.keys()].sort((a, b) => a - b)).toEqual(log.map((e) => e.seq));
        expect(await appliedSeq(progressTables(store.db), runId)).toBe(log.length);

        const trace = await repository.getTrace(runId);
        if (!trace) throw new Error(`no trace of ${runId}`);
        expect(trace.run.runId).toBe(runId);
        expect(traceView(trace)).toEqual(referenceFold(log, { orphans: 'canceled' }));
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
