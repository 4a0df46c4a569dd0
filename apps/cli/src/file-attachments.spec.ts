import { collectPaths, fileUploadOf, inputWithFiles } from './file-attachments';

const part = (n: number) => ({ type: 'file' as const, fileId: `file_${String(n).repeat(26)}`, name: `f${n}.png` });

describe('--file', () => {
  it('collects every --file in order', () => {
    expect(['a.png', 'b.pdf'].reduce<string[]>((acc, p) => collectPaths(p, acc), [])).toEqual(['a.png', 'b.pdf']);
  });

  it('claims a type from the extension, and nothing for one it does not know', () => {
    expect(fileUploadOf('./shots/Shot.PNG')).toEqual({ name: 'Shot.PNG', contentType: 'image/png' });
    expect(fileUploadOf('/tmp/report.pdf')).toEqual({ name: 'report.pdf', contentType: 'application/pdf' });
    expect(fileUploadOf('notes')).toEqual({ name: 'notes', contentType: 'application/octet-stream' });
    expect(fileUploadOf('x.constructor')).toEqual({ name: 'x.constructor', contentType: 'application/octet-stream' });
  });

  it('puts the files under input.files, keeping the rest of the input', () => {
    expect(inputWithFiles(undefined, [part(1), part(2)])).toEqual({ files: [part(1), part(2)] });
    expect(inputWithFiles({ question: 'what is this?' }, [part(1)])).toEqual({ question: 'what is this?', files: [part(1)] });
    expect(inputWithFiles({ question: 'x' }, [])).toEqual({ question: 'x' });
  });

  it('refuses an input that already has files, or is not an object', () => {
    expect(() => inputWithFiles({ files: [] }, [part(1)])).toThrow(
      expect.objectContaining({ code: 'usage', message: expect.stringMatching(/already has "files"/) }),
    );
    for (const input of ['text', [1], null, 3])
      expect(() => inputWithFiles(input, [part(1)])).toThrow(/--input must then be a JSON object/);
  });
});
