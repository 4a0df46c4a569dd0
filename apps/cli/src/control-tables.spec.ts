import type { Experiment, ExperimentComparison, Schedule, WebhookDelivery, WebhookEvent } from '@spindle/contracts';
import { deliveryLines, experimentComparisonTable, receivedLine, scheduleDetail, scheduleTable, threadRunTable } from './control-tables';

const actor = { kind: 'user', id: 'ada' } as Schedule['createdBy'];
const schedule: Schedule = {
  scheduleId: 'sch_1',
  cron: '0 9 * * 1-5',
  timezone: 'Europe/Paris',
  workflow: 'report',
  version: null,
  input: null,
  overlap: 'skip',
  catchUp: 'latest',
  paused: false,
  nextFireAt: '2026-03-09T08:00:00.000Z',
  upcoming: ['2026-03-09T08:00:00.000Z', '2026-03-10T08:00:00.000Z'],
  lastRunId: null,
  createdAt: '2026-03-01T00:00:00.000Z',
  createdBy: actor,
};

describe('the control tables', () => {
  it('lists schedules with their state and next firing, and shows one with its next firings and history', () => {
    expect(scheduleTable([schedule, { ...schedule, scheduleId: 'sch_2', paused: true, nextFireAt: null, version: 3 }])).toEqual([
      'schedule  cron         zone          workflow       state   next',
      'sch_1     0 9 * * 1-5  Europe/Paris  report latest  active  2026-03-09T08:00:00.000Z',
      'sch_2     0 9 * * 1-5  Europe/Paris  report v3      paused  -',
    ]);
    const lines = scheduleDetail(schedule, [{ fireAt: '2026-03-06T08:00:00.000Z', outcome: 'skipped', runId: null, detail: 'overlap' }]);
    expect(lines[2]).toBe('  next firings: 2026-03-09T08:00:00.000Z, 2026-03-10T08:00:00.000Z');
    expect(lines.at(-1)).toBe('2026-03-06T08:00:00.000Z  skipped  -    overlap');
    expect(scheduleDetail({ ...schedule, paused: true, upcoming: [] }, [])).toContain('  next firings: none while paused');
  });

  it('prints each delivery with one line per attempt, its answer or its error', () => {
    const delivery: WebhookDelivery = {
      deliveryId: 'whd_1',
      eventId: 'evt',
      eventType: 'run.failed',
      runId: 'run_1',
      status: 'pending',
      attempts: [
        { attempt: 1, at: '2026-03-06T08:00:00.000Z', statusCode: 500, error: null, durationMs: 12, response: 'boom' },
        { attempt: 2, at: '2026-03-06T08:00:05.000Z', statusCode: null, error: 'connect ECONNREFUSED', durationMs: 3, response: null },
      ],
      nextAttemptAt: '2026-03-06T08:00:15.000Z',
      createdAt: '2026-03-06T08:00:00.000Z',
      deliveredAt: null,
    };
    expect(deliveryLines([delivery])).toEqual([
      'whd_1  run.failed  run run_1  pending, next attempt 2026-03-06T08:00:15.000Z',
      '  attempt 1  2026-03-06T08:00:00.000Z  HTTP 500  12 ms',
      '  attempt 2  2026-03-06T08:00:05.000Z  no answer  3 ms  connect ECONNREFUSED',
    ]);
    expect(deliveryLines([])).toEqual(['no deliveries yet']);
  });

  it('says what a received delivery was, and when it came unsigned', () => {
    const event: WebhookEvent = {
      id: 'evt',
      type: 'run.failed',
      createdAt: '2026-03-06T08:00:00.000Z',
      data: {
        runId: 'run_1',
        workflow: { name: 'report', version: 2 },
        threadId: null,
        scheduleId: null,
        error: { code: 'x', message: 'y' },
      },
    };
    expect(receivedLine(event, { ok: true, signedAt: 1 })).toBe('run.failed  run run_1  report v2  x: y');
    expect(receivedLine({ ...event, data: { ...event.data, error: undefined, output: { a: 1 } } }, { ok: false, reason: 'missing' })).toBe(
      'run.failed  run run_1  report v2  output keys a  (refused: Spindle-Signature missing)',
    );
    expect(receivedLine(event, { ok: false, reason: 'outside_tolerance' })).toBe(
      'run.failed  run run_1  report v2  x: y  (refused: Spindle-Signature outside tolerance)',
    );
  });

  it("numbers a thread's runs in order", () => {
    const run = { runId: 'run_1', position: 1, workflow: 'chat', status: 'completed', multitaskStrategy: 'reject', queuedAt: 't' } as const;
    expect(threadRunTable([run])[1]).toBe('1  run_1  chat      completed  reject    t');
  });

  it('compares experiments item by item: status, output, scores, tokens, cost and wall time, marking the items that differ', () => {
    const experiment = (experimentId: string, name: string | null) =>
      ({ experimentId, name, workflow: { name: 'hello', version: 1 }, dataset: { name: 'greetings', version: 1 } }) as Experiment;
    const result = (answer: string, greets: boolean, tokens: number, costUsd: number | undefined, wallMs: number) => ({
      runId: 'r',
      status: 'completed' as const,
      output: { answer },
      error: null,
      usage: { inputTokens: tokens, outputTokens: 0, totalTokens: tokens, ...(costUsd !== undefined && { costUsd }) },
      wallMs,
      scores: { greets },
      evaluatorErrors: {},
    });
    const comparison: ExperimentComparison = {
      experiments: [experiment('exp_1', 'v1 prompt'), experiment('exp_2', null)],
      items: [
        {
          itemId: 'di_1',
          input: { name: 'Ada' },
          expected: 'Hello Ada',
          results: { exp_1: result('Hello Ada', true, 22, 0.0012, 516), exp_2: result('Hi Ada', false, 14, undefined, 245) },
        },
        { itemId: 'di_2', input: { name: 'Bo' }, expected: null, results: { exp_1: result('Hello Bo', true, 22, 0, 9) } },
      ],
    };
    expect(experimentComparisonTable(comparison)).toEqual([
      '   item  input           expected     experiment  status     output                  scores        tokens  cost      wall',
      '*  di_1  {"name":"Ada"}  "Hello Ada"  v1 prompt   completed  {"answer":"Hello Ada"}  greets=true       22  $0.00120  516 ms',
      '                                      exp_2       completed  {"answer":"Hi Ada"}     greets=false      14  unpriced  245 ms',
      '*  di_2  {"name":"Bo"}   -            v1 prompt   completed  {"answer":"Hello Bo"}   greets=true       22  $0        9 ms',
      '                                      exp_2       -          not in this experiment',
    ]);
  });
});
