import { builtinEvaluatorSpecSchema, inEvaluatorSample, type BuiltinEvaluatorSpec } from '@spindle/contracts';
import { validateDefinition } from '../definition/validate-definition';
import { EvaluatorFailure, judge, workflowVerdict, type EvaluatedRun } from './builtin-evaluators';

const run: EvaluatedRun = { output: { answer: 'Paris, France', total: 41.5, items: [{ id: 'a1' }] }, wallMs: 120, costUsd: 0.002 };
const spec = (raw: unknown): BuiltinEvaluatorSpec => builtinEvaluatorSpecSchema.parse(raw);
const valueOf = (raw: unknown, r = run) => judge(spec(raw), r).value;

describe('the built-in evaluators', () => {
  it('match exactly, by canonical JSON, at a path or on the whole output', () => {
    expect(valueOf({ type: 'exact_match', path: 'answer', expected: 'Paris, France' })).toBe(true);
    expect(valueOf({ type: 'exact_match', path: 'items', expected: [{ id: 'a1' }] })).toBe(true);
    expect(valueOf({ type: 'exact_match', expected: { answer: 'Paris' } })).toBe(false);
    expect(judge(spec({ type: 'exact_match', name: 'right_city', path: 'answer', expected: 'x' }), run).name).toBe('right_city');
  });

  it('check a JSON Schema, naming what does not fit', () => {
    expect(valueOf({ type: 'json_schema', schema: { type: 'object', required: ['answer'] } })).toBe(true);
    const miss = judge(spec({ type: 'json_schema', path: 'total', schema: { type: 'integer' } }), run);
    expect(miss).toMatchObject({ value: false, comment: expect.stringContaining('total') });
  });

  it('find text and RE2 patterns in a string or in the JSON of anything else', () => {
    expect(valueOf({ type: 'contains', path: 'answer', text: 'paris' })).toBe(true);
    expect(valueOf({ type: 'contains', path: 'answer', text: 'paris', caseSensitive: true })).toBe(false);
    expect(valueOf({ type: 'contains', text: '"id":"a1"' })).toBe(true);
    expect(valueOf({ type: 'regex', path: 'answer', pattern: '^[A-Z][a-z]+, [A-Z]' })).toBe(true);
    // RE2: a pattern that backtracks for hours in JavaScript is linear here.
    expect(valueOf({ type: 'regex', path: 'answer', pattern: '^(a+)+$' })).toBe(false);
  });

  it('compare numbers within a tolerance, and thresholds of wall time and cost', () => {
    expect(valueOf({ type: 'numeric_tolerance', path: 'total', expected: 42, tolerance: 0.5 })).toBe(true);
    expect(valueOf({ type: 'numeric_tolerance', path: 'total', expected: 42, tolerance: 0.4 })).toBe(false);
    expect(valueOf({ type: 'latency_below', maxMs: 200 })).toBe(true);
    expect(valueOf({ type: 'latency_below', maxMs: 120 })).toBe(false);
    expect(valueOf({ type: 'cost_below', maxUsd: 0.01 })).toBe(true);
  });

  it('fail, rather than score, when the run does not have what they judge', () => {
    expect(() => judge(spec({ type: 'exact_match', path: 'missing', expected: 1 }), run)).toThrow(EvaluatorFailure);
    expect(() => judge(spec({ type: 'numeric_tolerance', path: 'answer', expected: 1, tolerance: 0 }), run)).toThrow(EvaluatorFailure);
    expect(() => judge(spec({ type: 'cost_below', maxUsd: 1 }), { ...run, costUsd: undefined })).toThrow(EvaluatorFailure);
    // An inherited key is not in the output.
    expect(() => judge(spec({ type: 'exact_match', path: 'constructor', expected: 1 }), run)).toThrow(EvaluatorFailure);
  });

  it('are refused at save when a pattern or a schema cannot be used, or two give one score', () => {
    const base = { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] };
    const issuesOf = (evaluators: unknown[]) => {
      try {
        validateDefinition({ ...base, evaluators });
        return [];
      } catch (e) {
        return ((e as { issues?: Array<{ field: string }> }).issues ?? []).map((i) => i.field);
      }
    };
    expect(issuesOf([{ type: 'regex', pattern: '(?<=x)y' }])).toEqual(['evaluators[0].pattern']);
    expect(issuesOf([{ type: 'json_schema', schema: { type: 'nonsense' } }])).toEqual(['evaluators[0].schema']);
    expect(
      issuesOf([
        { type: 'latency_below', maxMs: 1 },
        { type: 'latency_below', maxMs: 2 },
      ]),
    ).toEqual(['evaluators[1].name']);
    expect(issuesOf([{ type: 'latency_below', maxMs: 1, sampleRate: 0.5 }])).toEqual([]);
  });

  it('sample the same runs every time, about the share asked', () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => `run-${i}`);
    const picked = ids.filter((id) => inEvaluatorSample(id, 'quality', 0.25));
    expect(picked.length).toBeGreaterThan(400);
    expect(picked.length).toBeLessThan(600);
    expect(ids.filter((id) => inEvaluatorSample(id, 'quality', 0.25))).toEqual(picked);
    expect(ids.every((id) => inEvaluatorSample(id, 'quality', 1))).toBe(true);
    expect(ids.some((id) => inEvaluatorSample(id, 'quality', 0))).toBe(false);
  });
});

describe('a judge workflow’s verdict', () => {
  const spec = {
    type: 'workflow' as const,
    name: 'helpful',
    workflow: 'judge',
    sampleRate: 1,
    scorePath: 'verdict.score',
    commentPath: 'verdict.why',
  };
  it('takes the score and the comment at their paths', () => {
    expect(workflowVerdict(spec, { verdict: { score: 0.8, why: 'answers the question' } })).toEqual({
      name: 'helpful',
      value: 0.8,
      comment: 'answers the question',
    });
    expect(workflowVerdict({ ...spec, commentPath: undefined }, { verdict: { score: 'good' } }).comment).toBe('judged by judge');
  });
  it('fails when the judge said no score, or one that is not a number, a boolean or a label', () => {
    expect(() => workflowVerdict(spec, { verdict: {} })).toThrow('the output has no verdict.score');
    expect(() => workflowVerdict(spec, { verdict: { score: { a: 1 }, why: '' } })).toThrow(EvaluatorFailure);
    expect(() => workflowVerdict(spec, { verdict: { score: '', why: '' } })).toThrow('is not a number, a boolean or a label');
  });
});
