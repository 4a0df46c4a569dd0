import { chooseAgentVersion } from './agent-pins';

const schema = {
  type: 'object',
  properties: {
    writer_version: { type: 'integer', minimum: 1, default: 2 },
    free_version: { type: 'integer' },
    tone: { type: 'string' },
  },
};
const atSave = { schema };

describe('chooseAgentVersion', () => {
  it('no version is the latest; a number is that version', () => {
    expect(chooseAgentVersion({}, 'agents[0]', atSave)).toEqual({ ok: true, version: undefined });
    expect(chooseAgentVersion({ version: 3 }, 'agents[0]', atSave)).toEqual({ ok: true, version: 3 });
  });

  it.each([0, -1, 1.5, '2', null, [1], { parameter: 'writer_version', extra: 1 }])(
    'refuses %j as a version, naming the field',
    (version) => {
      expect(chooseAgentVersion({ version }, 'agents[1]', atSave)).toEqual({
        ok: false,
        issue: { field: 'agents[1].version', message: expect.stringContaining('must be a whole number from 1') },
      });
    },
  );

  it("a parameter chooses: the run's value, else its default; at save its default stands for it", () => {
    const pin = { version: { parameter: 'writer_version' } };
    expect(chooseAgentVersion(pin, 'manager', atSave)).toEqual({ ok: true, version: 2, parameter: 'writer_version' });
    expect(chooseAgentVersion(pin, 'manager', { schema, values: { writer_version: 5 } })).toEqual({
      ok: true,
      version: 5,
      parameter: 'writer_version',
    });
    // No value and no default: the latest.
    expect(chooseAgentVersion({ version: { parameter: 'free_version' } }, 'manager', { schema, values: {} })).toEqual({
      ok: true,
      version: undefined,
      parameter: 'free_version',
    });
  });

  it('refuses a parameter the workflow does not declare (or not as an integer), and a value that is no version', () => {
    for (const parameter of ['nope', 'tone', '__proto__', 'constructor'])
      expect(chooseAgentVersion({ version: { parameter } }, 'agents[0]', atSave)).toMatchObject({
        ok: false,
        issue: { field: 'agents[0].version.parameter' },
      });
    expect(chooseAgentVersion({ version: { parameter: 'x' } }, 'agents[0]', { schema: undefined })).toMatchObject({
      ok: false,
      issue: { field: 'agents[0].version.parameter' },
    });
    expect(chooseAgentVersion({ version: { parameter: 'free_version' } }, 'aggregator', { schema, values: { free_version: 0 } })).toEqual({
      ok: false,
      issue: { field: 'aggregator.version', message: 'parameter "free_version" is 0, not a version (a whole number from 1)' },
    });
  });
});
