import { isSpindleError } from '@spindle/contracts';
import { MAX_FILE_PARTS, filePartsIn, resolveFileParts, type StoredFileRef } from './file-parts.resolver';
import { fileIdOf } from './file-id';

const SHA = 'a'.repeat(64);
const PNG = fileIdOf('acme', SHA);
const PDF = fileIdOf('acme', 'b'.repeat(64));
const stored: Record<string, StoredFileRef> = {
  [PNG]: { type: 'file', fileId: PNG, mediaType: 'image/png', bytes: 10, sha256: SHA, name: 'shot.png' },
  [PDF]: { type: 'file', fileId: PDF, mediaType: 'application/pdf', bytes: 20, sha256: 'b'.repeat(64), name: null },
};

/** The tenant's files, and every batch it was asked for. */
function lookupOf(files: Record<string, StoredFileRef>) {
  const asked: string[][] = [];
  const lookup = async (ids: readonly string[]) => {
    asked.push([...ids]);
    return new Map(ids.filter((id) => files[id]).map((id) => [id, files[id]]));
  };
  return { lookup, asked };
}

async function refusal(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    if (isSpindleError(e)) return { code: e.code, message: e.message, issues: e.issues };
    throw e;
  }
  throw new Error('not refused');
}

describe('resolveFileParts', () => {
  it('replaces every part with the reference, in one lookup, and leaves the rest as it was', async () => {
    const { lookup, asked } = lookupOf(stored);
    const input = {
      question: 'what is this?',
      files: [
        { type: 'file', fileId: PNG },
        { type: 'file', fileId: PDF, name: 'report.pdf' },
      ],
      nested: { again: { type: 'file', fileId: PNG, name: 'same again' } },
      notAPart: { type: 'file', url: 'https://example.com/x' },
    };
    expect(await resolveFileParts(input, 'input', lookup)).toEqual({
      question: 'what is this?',
      files: [
        { type: 'file', fileId: PNG, mediaType: 'image/png', bytes: 10, sha256: SHA, name: 'shot.png' },
        { type: 'file', fileId: PDF, mediaType: 'application/pdf', bytes: 20, sha256: 'b'.repeat(64), name: 'report.pdf' },
      ],
      nested: { again: { type: 'file', fileId: PNG, mediaType: 'image/png', bytes: 10, sha256: SHA, name: 'same again' } },
      notAPart: { type: 'file', url: 'https://example.com/x' },
    });
    expect(asked).toEqual([[PNG, PDF]]);
  });

  it('looks up a forged reference again: its claimed type, size and hash are replaced by the stored ones', async () => {
    const { lookup } = lookupOf(stored);
    const forged = { type: 'file', fileId: PNG, mediaType: 'text/plain', bytes: 1, sha256: 'c'.repeat(64) };
    expect(await resolveFileParts([forged], 'state', lookup)).toEqual([
      { type: 'file', fileId: PNG, mediaType: 'image/png', bytes: 10, sha256: SHA, name: 'shot.png' },
    ]);
  });

  it('asks nothing of a value without parts, and answers it unchanged', async () => {
    const { lookup, asked } = lookupOf(stored);
    const input = { a: [1, 'two', null, { b: true }] };
    expect(await resolveFileParts(input, 'input', lookup)).toBe(input);
    expect(asked).toEqual([]);
  });

  it('refuses an id the tenant has no file of, naming the field', async () => {
    const { lookup } = lookupOf(stored);
    const otherTenants = fileIdOf('globex', SHA);
    expect(
      await refusal(
        resolveFileParts(
          {
            files: [
              { type: 'file', fileId: PNG },
              { type: 'file', fileId: otherTenants },
            ],
          },
          'input',
          lookup,
        ),
      ),
    ).toEqual({
      code: 'file_not_found',
      message: `input.files[1].fileId: no file with id "${otherTenants}"`,
      issues: [{ field: 'input.files[1].fileId', message: 'no such file' }],
    });
  });

  it.each([
    ['a malformed id', { type: 'file', fileId: 'file_NOPE' }, 'answer.fileId'],
    ['an id that is not a string', { type: 'file', fileId: 7 }, 'answer.fileId'],
    ['an empty name', { type: 'file', fileId: PNG, name: '' }, 'answer.name'],
    ['a name that is not a string', { type: 'file', fileId: PNG, name: { x: 1 } }, 'answer.name'],
  ])('refuses %s as a bad field', async (_name, part, field) => {
    const { lookup } = lookupOf(stored);
    expect(await refusal(resolveFileParts(part, 'answer', lookup))).toMatchObject({ code: 'validation_failed', issues: [{ field }] });
  });

  it('refuses more parts than a run may carry, and values nested too deep to search', async () => {
    const many = Array.from({ length: MAX_FILE_PARTS + 1 }, () => ({ type: 'file', fileId: PNG }));
    expect(() => filePartsIn(many, 'input')).toThrow(/more than 256 files/);
    expect(filePartsIn(many.slice(1), 'input')).toHaveLength(MAX_FILE_PARTS);
    let deep: unknown = { type: 'file', fileId: PNG };
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(() => filePartsIn(deep, 'input')).toThrow(/deeper than 64/);
  });

  it('keeps a key named __proto__ as data, never as a prototype', async () => {
    const { lookup } = lookupOf(stored);
    const input = JSON.parse(`{"__proto__": {"polluted": true}, "f": {"type": "file", "fileId": "${PNG}"}}`) as unknown;
    const out = (await resolveFileParts(input, 'input', lookup)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('fileIdOf', () => {
  it('is one id per tenant and bytes, another for another tenant, in the id format', () => {
    expect(fileIdOf('acme', SHA)).toBe(PNG);
    expect(fileIdOf('globex', SHA)).not.toBe(PNG);
    expect(PNG).toMatch(/^file_[a-z2-7]{26}$/);
  });
});
