import type { JsMsg } from '@nats-io/jetstream';
import type { Bus } from '@spindle/bus';
import type { RunEvent } from '@spindle/contracts';
import type { ProjectionProgressTables } from '@spindle/db';
import { appliedSeq, foldEvents, progressTables, ProjectionRunner, type Projection } from '@spindle/projection-kit';
import { createLogger } from '@spindle/telemetry';
import fc from 'fast-check';
import type { Kysely } from 'kysely';
import { runLogArbitrary, withRunId } from './run-log-generator';

/**
 * A projection wired to a real bus and a fresh schema, a second fresh schema for the oracle (one
 * fold of the log; keys like request ids are unique across runs, so it cannot share the first),
 * and how to read one run's rows back from either.
 */
export interface ProjectionUnderTest<DB extends ProjectionProgressTables> {
  bus: Bus;
  db: Kysely<DB>;
  reference: Kysely<DB>;
  projection: Projection<DB>;
  /** Everything the projection stored about one run, in a form that compares with `toEqual`. */
  rows(db: Kysely<DB>, runId: string): Promise<unknown>;
  close(): Promise<void>;
}

/** How one log reaches the projection: consecutive batches, some delivered again, two maybe swapped, each maybe shuffled. */
export interface Delivery {
  cuts: number[];
  /** A batch delivered a second time, later (a redelivery after an ack was lost). */
  duplicate: { batch: number; after: number };
  /** Two neighbouring batches arriving in swapped order (a failed batch redelivered late). */
  swap: number | undefined;
  /** Events within each batch in another order, and one event repeated within a batch. */
  shuffleSeed: number;
  /** The projection crashed after committing this many batches: everything is delivered again from the start. */
  crashAfter: number | undefined;
  /** At most this many consecutive events per message, as a writer's group commit stores them (1: one per message). */
  perMessage: number;
  /** The same for the log as stored on the stream (what a gap is filled from). */
  perStoredMessage: number;
}

export const deliveryArb: fc.Arbitrary<Delivery> = fc.record({
  cuts: fc.array(fc.nat(), { maxLength: 8 }),
  duplicate: fc.record({ batch: fc.nat(), after: fc.nat() }),
  swap: fc.option(fc.nat(), { nil: undefined }),
  shuffleSeed: fc.nat(),
  crashAfter: fc.option(fc.nat({ max: 6 }), { nil: undefined }),
  perMessage: fc.integer({ min: 1, max: 4 }),
  perStoredMessage: fc.integer({ min: 1, max: 6 }),
});

/** The batches in the order they are handed to the runner. */
export function schedule(log: readonly RunEvent[], d: Delivery): RunEvent[][] {
  const at = [...new Set(d.cuts.map((c) => 1 + (c % Math.max(1, log.length - 1))))].filter((c) => c < log.length).sort((a, b) => a - b);
  const bounds = [0, ...at, log.length];
  let batches = bounds.slice(1).map((end, i) => log.slice(bounds[i], end));
  if (d.swap !== undefined && batches.length > 1) {
    const i = d.swap % (batches.length - 1);
    [batches[i], batches[i + 1]] = [batches[i + 1], batches[i]];
  }
  const dup = d.duplicate.batch % batches.length;
  const insertAt = dup + 1 + (d.duplicate.after % (batches.length - dup));
  batches = [...batches.slice(0, insertAt), batches[dup], ...batches.slice(insertAt)];
  batches = batches.map((b, i) => shuffled(b, d.shuffleSeed + i));
  if (d.crashAfter !== undefined) batches = [...batches.slice(0, d.crashAfter % (batches.length + 1)), ...batches];
  return batches;
}

/** A deterministic shuffle, plus the first event once more (a repeat within the batch). */
function shuffled(batch: readonly RunEvent[], seed: number): RunEvent[] {
  const out = [...batch];
  let s = seed + 1;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return seed % 3 === 0 && out.length > 0 ? [...out, out[0]] : out;
}

/** What a message is settled with, per seq. */
export interface Settlement {
  acks: Map<number, number>;
  naks: number[];
  terms: number[];
}

/**
 * Events as the messages a projection's consumer is handed, settling into `settled`. Up to
 * `perMessage` neighbours with consecutive seqs share one message, as the log writer batches them.
 */
export function messagesOf(bus: Bus, batch: readonly RunEvent[], settled: Settlement = newSettlement(), perMessage = 1): JsMsg[] {
  return groupsOf(batch, perMessage).map((group) =>
    messageOf(
      bus,
      bus.names.eventSubject(group[0]!.runId),
      bodyOf(group),
      group.map((e) => e.seq),
      settled,
    ),
  );
}

/** Neighbouring events of one run with consecutive seqs, at most `size` per group. */
function groupsOf(events: readonly RunEvent[], size: number): RunEvent[][] {
  const groups: RunEvent[][] = [];
  for (const event of events) {
    const group = groups.at(-1);
    const last = group?.at(-1);
    if (group && last && group.length < size && last.runId === event.runId && event.seq === last.seq + 1) group.push(event);
    else groups.push([event]);
  }
  return groups;
}

/** One event as itself, several as the writer's batch (an array). */
function bodyOf(group: readonly RunEvent[]): string {
  return JSON.stringify(group.length === 1 ? group[0] : group);
}

export function newSettlement(): Settlement {
  return { acks: new Map(), naks: [], terms: [] };
}

/** A message of the events stream as the consumer hands it over; the seqs it holds name it in `settled`. */
function messageOf(bus: Bus, subject: string, body: string, seqs: number | number[], settled: Settlement): JsMsg {
  const held = typeof seqs === 'number' ? [seqs] : seqs;
  const msg = {
    subject,
    data: Buffer.from(body),
    seq: held[0],
    info: { stream: bus.names.eventsStream, deliveryCount: 1 },
    headers: undefined,
    ack: () => held.forEach((seq) => settled.acks.set(seq, (settled.acks.get(seq) ?? 0) + 1)),
    nak: () => void settled.naks.push(...held),
    term: () => void settled.terms.push(...held),
  };
  return msg as unknown as JsMsg;
}

/** Puts the log on the run's subject, so a runner filling a gap reads it from the stream itself. */
async function store(bus: Bus, log: readonly RunEvent[], perMessage = 1): Promise<void> {
  for (const group of groupsOf(log, perMessage)) {
    const [first, last] = [group[0]!, group.at(-1)!];
    const msgID = group.length === 1 ? `${first.runId}:${first.seq}` : `${first.runId}:${first.seq}-${last.seq}`;
    await bus.js.publish(bus.names.eventSubject(first.runId), bodyOf(group), { msgID });
  }
}

/**
 * The one conformance suite every projection passes (LangGraph's checkpoint-validation idea): for
 * any valid run log, stored and delivered as single events or writer batches, split into batches,
 * with batches repeated, swapped and shuffled, events repeated within a batch, and everything
 * redelivered after a crash, the projection holds
 * exactly the rows of one fold of the whole log, and every message is acknowledged; messages that
 * are not part of the log are dead-lettered and change nothing.
 */
export function describeProjectionConformance<DB extends ProjectionProgressTables>(
  name: string,
  open: () => Promise<ProjectionUnderTest<DB>>,
  opts: { numRuns?: number } = {},
): void {
  describe(`${name}: projection conformance`, () => {
    let subject: ProjectionUnderTest<DB>;
    let runner: ProjectionRunner<DB>;
    let runs = 0;
    const logger = createLogger(`${name}-conformance`, { level: 'fatal' });

    beforeAll(async () => {
      subject = await open();
      runner = new ProjectionRunner<DB>(subject.bus, subject.db, subject.projection, logger);
    });
    afterAll(async () => {
      await subject?.close();
    });

    /** The fold of the whole log: the projection's `apply` on all of it at once, in the reference schema. */
    async function foldOf(log: readonly RunEvent[]): Promise<unknown> {
      const runId = log[0].runId;
      await foldEvents(subject.reference, subject.projection, log);
      return subject.rows(subject.reference, runId);
    }

    it('holds one fold of the log however the log is delivered', async () => {
      await fc.assert(
        fc.asyncProperty(runLogArbitrary({ maxSteps: 25 }), deliveryArb, async (generated, delivery) => {
          const runId = `conf-${++runs}`;
          const log = withRunId(generated, runId);
          await store(subject.bus, log, delivery.perStoredMessage);
          const settled: Settlement = { acks: new Map(), naks: [], terms: [] };
          for (const batch of schedule(log, delivery)) await runner.handle(messagesOf(subject.bus, batch, settled, delivery.perMessage));

          expect(settled.naks).toEqual([]);
          expect(settled.terms).toEqual([]);
          expect([...settled.acks.keys()].sort((a, b) => a - b)).toEqual(log.map((e) => e.seq));
          expect(await appliedSeq(progressTables(subject.db), runId)).toBe(log.length);
          expect(await subject.rows(subject.db, runId)).toEqual(await foldOf(log));
        }),
        { numRuns: opts.numRuns ?? 20 },
      );
    });

    it('dead-letters what is not part of the log and keeps the rows of the log', async () => {
      const [generated] = fc.sample(runLogArbitrary({ maxSteps: 10 }), { numRuns: 1, seed: 7 });
      const runId = `noise-${++runs}`;
      const log = withRunId(generated, runId);
      await store(subject.bus, log);
      const settled: Settlement = { acks: new Map(), naks: [], terms: [] };
      const last = log.at(-1)!;
      const forgedRepeat = { ...log[0], at: '2030-01-01T00:00:00.000Z' };
      const afterEnd = { ...last, seq: last.seq + 2, type: 'custom', data: { forged: true } } as RunEvent;
      const junk = messageOf(subject.bus, subject.bus.names.eventSubject(runId), '{not json', 10_000, settled);
      await runner.handle([...messagesOf(subject.bus, log, settled), ...messagesOf(subject.bus, [forgedRepeat], settled), junk]);
      // A message past the end of a finished run (or past a gap the log does not fill) is not the log's either.
      await runner.handle(messagesOf(subject.bus, [afterEnd], settled));

      expect(await subject.rows(subject.db, runId)).toEqual(await foldOf(log));
      expect(await appliedSeq(progressTables(subject.db), runId)).toBe(log.length);
      expect(settled.terms.sort((a, b) => a - b)).toEqual([log[0].seq, afterEnd.seq, 10_000].sort((a, b) => a - b));
    });

    it('reads no data of the event types it does not declare, and still checks their envelopes', async () => {
      const reads = subject.projection.reads;
      const [generated] = fc.sample(runLogArbitrary({ maxSteps: 25 }), { numRuns: 1, seed: 13 });
      const log = withRunId(generated, `unread-${++runs}`);
      // What the projection says it does not read carries data no schema accepts: its rows must not change.
      const blurred = log.map((e) => (reads && !reads[e.type] ? ({ ...e, data: { unread: [e.seq] } } as unknown as RunEvent) : e));
      await store(subject.bus, blurred);
      const settled = newSettlement();
      await runner.handle(messagesOf(subject.bus, blurred, settled));
      expect(settled.terms).toEqual([]);
      expect(await subject.rows(subject.db, log[0].runId)).toEqual(await foldOf(log));

      // An unread type's envelope is still the log's: a seq that is not a number is dead-lettered.
      const unread = reads && log.find((e) => !reads[e.type]);
      if (!unread) return;
      const broken = { ...unread, runId: `unread-${++runs}`, seq: 'one' } as unknown as RunEvent;
      const refused = newSettlement();
      await runner.handle(messagesOf(subject.bus, [broken], refused));
      expect(refused.terms).toHaveLength(1);
    });

    it("erases a run (its rows and progress, nobody else's) and expires runs by when they were queued", async () => {
      const [erased, kept] = fc
        .sample(runLogArbitrary({ maxSteps: 10 }), { numRuns: 2, seed: 11 })
        .map((generated) => withRunId(generated, `erase-${++runs}`));
      for (const log of [erased, kept]) {
        await store(subject.bus, log);
        await runner.handle(messagesOf(subject.bus, log, newSettlement()));
      }
      const none = await subject.rows(subject.db, 'never-queued');
      const keptRows = await subject.rows(subject.db, kept[0].runId);
      expect(keptRows).not.toEqual(none);

      await runner.eraseRuns([erased[0].runId]);
      expect(await subject.rows(subject.db, erased[0].runId)).toEqual(none);
      expect(await appliedSeq(progressTables(subject.db), erased[0].runId)).toBe(0);
      expect(await subject.rows(subject.db, kept[0].runId)).toEqual(keptRows);

      // The retention clock is the run's own: its first event's `at`, not when it was applied.
      expect(await runner.expireBefore(new Date(Date.parse(kept[0].at)))).toBe(0);
      expect(await runner.expireBefore(new Date(Date.parse(kept[0].at) + 1))).toBeGreaterThan(0);
      expect(await subject.rows(subject.db, kept[0].runId)).toEqual(none);
    });
  });
}
