import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { readExamples } from './example-file';
import { inputWithFiles, mediaTypeOf } from './example-files';

const dir = resolve(__dirname, '../../../../examples');

describe('examples that carry files', () => {
  it('uploads each file an example names and writes its id where the input marks it', async () => {
    const example = readExamples(dir).find((e) => e.name === 'describe-image');
    expect(example?.files).toEqual({ pixel: 'files/pixel.png' });
    const uploads: Array<{ sha256: string; mediaType: string }> = [];
    const input = await inputWithFiles(example?.input, example?.files ?? {}, dir, async (bytes, mediaType) => {
      uploads.push({ sha256: createHash('sha256').update(bytes).digest('hex'), mediaType });
      return `file_${'x'.repeat(26)}`;
    });
    expect(input).toEqual({ files: [{ type: 'file', fileId: `file_${'x'.repeat(26)}` }] });
    // The bytes uploaded are the ones the example's expected answer names by hash.
    expect(uploads).toEqual([{ sha256: 'c414cd0e204de974f73753c7e28d7638e7b3691bb8b1a2bab6b25bb7fed7ce77', mediaType: 'image/png' }]);
    expect(JSON.stringify(example?.expect.output)).toContain(uploads[0].sha256);
  });

  it('refuses an example with files but no uploader, and a mark naming no listed file', async () => {
    await expect(inputWithFiles({ $file: 'pixel' }, { pixel: 'files/pixel.png' }, dir)).rejects.toThrow('run it with an uploader');
    await expect(inputWithFiles({ $file: 'other' }, { pixel: 'files/pixel.png' }, dir, async () => 'id')).rejects.toThrow('"other"');
    expect(await inputWithFiles({ a: 1 }, {}, dir)).toEqual({ a: 1 });
    expect([mediaTypeOf('a.PNG'), mediaTypeOf('r.pdf'), mediaTypeOf('x.bin')]).toEqual([
      'image/png',
      'application/pdf',
      'application/octet-stream',
    ]);
  });
});
