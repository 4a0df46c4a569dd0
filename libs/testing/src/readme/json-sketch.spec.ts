import { AnswerBindings } from './answer-bindings';
import { parseJsonSketch } from './json-sketch';
import { sketchMismatches } from './json-sketch-match';

const check = (sketch: string, actual: unknown, bindings = new AnswerBindings()) =>
  sketchMismatches(parseJsonSketch(sketch), actual, bindings);

describe('JSON sketches: JSON with … for what is left out', () => {
  it('parses plain JSON to the same values', () => {
    expect(check('{"a":[1,-2.5e3,"x\\n",true,false,null],"b":{}}', { a: [1, -2500, 'x\n', true, false, null], b: {} })).toEqual([]);
  });

  it('holds an object to exactly its members unless … says there are more', () => {
    expect(check('{"name":"hello","created":true}', { name: 'hello', created: true, version: 1 })).toEqual([
      '$: has members the README does not show (add them, or …): version',
    ]);
    expect(check('{…,"name":"hello"}', { name: 'hello', created: true })).toEqual([]);
    expect(check('{"name":"hello",…}', { created: true })).toEqual(['$.name: missing']);
    expect(check('{…}', { anything: [1] })).toEqual([]);
  });

  it('reads … as a value as anything, and as the last item of an array as more items', () => {
    expect(check('{"delta":…}', { delta: 'Hello ' })).toEqual([]);
    expect(check('[1, …]', [1, 2, 3])).toEqual([]);
    expect(check('[1, …]', [])).toEqual(['$: expected at least 1 items, got 0']);
    expect(check('[1]', [1, 2])).toEqual(['$: expected 1 items, got 2']);
    expect(check('[…]', [])).toEqual([]);
  });

  it('names the path of a wrong value', () => {
    expect(check('{"data":{"output":{"word_count":2}}}', { data: { output: { word_count: 3 } } })).toEqual([
      '$.data.output.word_count: expected 2, got 3',
    ]);
    expect(check('{"a":[{"b":"x"}]}', { a: ['x'] })).toEqual(['$.a[0]: expected an object, got "x"']);
  });

  it('refuses a sketch that is not JSON with … in those places, saying where', () => {
    expect(() => parseJsonSketch('{"a":1,}')).toThrow('expected a JSON value or … at line 1, column 8');
    expect(() => parseJsonSketch('[…, 1]')).toThrow('… may only end an array');
    expect(() => parseJsonSketch('{"a":1}\n{"b":2}')).toThrow('unexpected text after the value at line 2, column 1');
    expect(() => parseJsonSketch('"a\\x"')).toThrow('not a JSON string at line 1, column 1');
    expect(() => parseJsonSketch('{1:1}')).toThrow('expected a member name at line 1, column 3');
  });
});

describe('volatile members (ids, times, durations, workers)', () => {
  it('match by type, and by ISO-8601 form for a time', () => {
    const sketch =
      '{"runId":"01M8MZ7GV3CM19TT0MT5MSF778","at":"2026-11-30T00:56:10.852Z","durationMs":141,"worker":"vm-1","expiresAt":null}';
    const actual = { runId: '01ABC', at: '2027-01-01T10:00:00.000Z', durationMs: 3, worker: 'runner-2', expiresAt: null };
    expect(check(sketch, actual)).toEqual([]);
    expect(check(sketch, { ...actual, at: 'yesterday', durationMs: '3', expiresAt: '2027-01-01T10:00:00.000Z' })).toEqual([
      '$.at: expected an ISO-8601 time (shown 2026-11-30T00:56:10.852Z), got "yesterday"',
      '$.durationMs: expected a number (shown 141), got "3"',
      '$.expiresAt: expected a null (shown null), got "2027-01-01T10:00:00.000Z"',
    ]);
  });

  it('stand for the real value from then on: the same shown id must be the same real id, and strings show it replaced', () => {
    const bindings = new AnswerBindings();
    expect(check('{"runId":"01SHOWN"}', { runId: '01REAL' }, bindings)).toEqual([]);
    expect(check('{"runId":"01SHOWN","location":"/v1/runs/01SHOWN"}', { runId: '01REAL', location: '/v1/runs/01REAL' }, bindings)).toEqual(
      [],
    );
    expect(check('{"startedBy":{"runId":"01SHOWN"}}', { startedBy: { runId: '01OTHER' } }, bindings)).toEqual([
      '$.startedBy.runId: expected "01REAL", the value shown as "01SHOWN" before, got "01OTHER"',
    ]);
    expect(bindings.substitute('curl localhost:8080/v1/runs/01SHOWN/trace')).toBe('curl localhost:8080/v1/runs/01REAL/trace');
  });

  it('bind volatile members before the others of their object, so a location may show the id beside it', () => {
    expect(check('{"location":"/v1/runs/01SHOWN","runId":"01SHOWN"}', { location: '/v1/runs/01REAL', runId: '01REAL' })).toEqual([]);
  });
});
