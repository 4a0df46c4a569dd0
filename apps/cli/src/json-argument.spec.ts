import { parseJsonArgument, parseJsonFile, parseJsonObjectArgument } from './json-argument';

const read = (path: string) => {
  if (path === 'input.json') return '{"name":"Ada"}';
  throw new Error('ENOENT: no such file');
};

describe('parseJsonArgument', () => {
  it('reads JSON text or @file', () => {
    expect(parseJsonArgument('--input', '[1,2]', read)).toEqual([1, 2]);
    expect(parseJsonArgument('--input', '@input.json', read)).toEqual({ name: 'Ada' });
  });

  it('names the option when the JSON or the file is bad', () => {
    expect(() => parseJsonArgument('--input', '{name:', read)).toThrow(
      expect.objectContaining({ code: 'usage', message: expect.stringMatching(/^--input is not valid JSON/) }),
    );
    expect(() => parseJsonArgument('--input', '@missing.json', read)).toThrow(/--input: cannot read missing.json: ENOENT/);
    expect(() => parseJsonObjectArgument('--state', '[]', read)).toThrow('--state must be a JSON object');
  });
});

describe('parseJsonFile', () => {
  it('names the file itself when it is missing or not JSON', () => {
    expect(parseJsonFile('input.json', read)).toEqual({ name: 'Ada' });
    expect(() => parseJsonFile('missing.json', read)).toThrow(
      expect.objectContaining({ code: 'usage', message: 'cannot read missing.json: ENOENT: no such file' }),
    );
    expect(() => parseJsonFile('bad.json', () => 'bad')).toThrow(/^bad\.json is not valid JSON \(/);
    expect(() => parseJsonFile('-', () => '{')).toThrow(/^standard input is not valid JSON/);
  });
});
