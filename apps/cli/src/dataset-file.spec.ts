import { parseDatasetFile } from './dataset-file';

describe('parseDatasetFile', () => {
  it('reads JSON Lines, one item a line, blank lines skipped', () => {
    const text = '{"input":{"q":"France?"},"expected":"Paris"}\n\n{"input":"Italy?","metadata":{"region":"south"}}\r\n';
    expect(parseDatasetFile('set.jsonl', text)).toEqual([
      { input: { q: 'France?' }, expected: 'Paris' },
      { input: 'Italy?', metadata: { region: 'south' } },
    ]);
  });

  it('reads CSV: input and expected columns, the others metadata, JSON cells as JSON, quotes as RFC 4180 has them', () => {
    const text = 'input,expected,region,weight\n"{""q"":""France?""}",Paris,west,2\n"Italy, please?","",south,"1.5"\r\n';
    expect(parseDatasetFile('set.csv', text)).toEqual([
      { input: { q: 'France?' }, expected: 'Paris', metadata: { region: 'west', weight: 2 } },
      { input: 'Italy, please?', metadata: { region: 'south', weight: 1.5 } },
    ]);
  });

  it('names the line it cannot read, and the kinds of file it takes', () => {
    expect(() => parseDatasetFile('set.jsonl', '{"input":1}\n{"inptu":2}')).toThrow(/set\.jsonl:2: not a dataset item/);
    expect(() => parseDatasetFile('set.jsonl', '{"input":1}\nnope')).toThrow(/set\.jsonl:2: not JSON/);
    expect(() => parseDatasetFile('set.csv', 'question\nx')).toThrow(/one of them `input`/);
    expect(() => parseDatasetFile('set.csv', 'input,expected\na')).toThrow(/set\.csv:2: 1 cells/);
    expect(() => parseDatasetFile('set.csv', 'input\n"open')).toThrow(/not closed/);
    expect(() => parseDatasetFile('set.txt', '')).toThrow(/\.jsonl, \.ndjson or \.csv/);
  });
});
