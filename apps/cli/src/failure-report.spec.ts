import { SpindleApiError, SpindleUnreachableError } from '@spindle/client';
import { reportFailure } from './failure-report';
import { UsageError } from './usage-error';

const local = { baseUrl: 'http://127.0.0.1:8080', urlSource: 'default' as const, token: 'k' };

describe('reportFailure', () => {
  it("prints a problem's title, status and code, its detail and every field at fault, and exits 1", () => {
    const problem = new SpindleApiError(400, {
      title: 'Invalid definition',
      code: 'invalid_definition',
      detail: 'the definition has 2 problems',
      errors: [
        { field: 'edges[0].to', message: 'no node "nope"' },
        { node: 'reply', field: 'model', message: 'required' },
      ],
    });
    expect(reportFailure(problem, local)).toEqual({
      exitCode: 1,
      lines: [
        'spindle: Invalid definition (400 invalid_definition)',
        '  the definition has 2 problems',
        '  - edges[0].to: no node "nope"',
        '  - reply: model: required',
      ],
    });
  });

  it('says where it looked for an unreachable gateway and how to start one, and exits 5', () => {
    const error = new SpindleUnreachableError('http://gw:1/v1/runs', new Error('ECONNREFUSED'));
    const report = reportFailure(error, { baseUrl: 'http://gw:1', urlSource: 'SPINDLE_URL' });
    expect(report.exitCode).toBe(5);
    expect(report.lines[0]).toBe('spindle: no Spindle gateway answered at http://gw:1 (from SPINDLE_URL).');
    expect(report.lines.join('\n')).toMatch(/npm start/);
  });

  it('tells how to send credentials when none were sent', () => {
    const report = reportFailure(
      new SpindleApiError(401, { code: 'unauthenticated', title: 'Unauthenticated', detail: 'no credentials' }),
      {
        ...local,
        token: undefined,
      },
    );
    expect(report.lines.at(-1)).toMatch(/set SPINDLE_TOKEN or pass --token/);
  });

  it('exits 2 on a usage error and 1 on anything else, with the message and no stack', () => {
    expect(reportFailure(new UsageError('--input is not valid JSON'), local)).toEqual({
      exitCode: 2,
      lines: ['spindle: --input is not valid JSON', 'Run `spindle --help` for usage.'],
    });
    expect(reportFailure(new Error('no pending request "r"'), local)).toEqual({ exitCode: 1, lines: ['spindle: no pending request "r"'] });
  });
});
