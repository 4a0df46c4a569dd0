import { randomBytes } from 'node:crypto';
import { fileSha256, readFileBytes } from '@spindle/bus';
import type { FileRef, RunEvent, StoredFile } from '@spindle/contracts';
import { eventually, readsControlPlaneSettings, startStack, type Stack } from '@spindle/testing';

/** A PNG's signature and a chunk of random bytes: a file no other test uploads. */
const png = () => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(64)]);
const MAX_FILE_BYTES = 64 * 1024;
/** A grace of ~7 s: long enough for a test to use an upload, short enough to watch the collector. */
const GRACE_HOURS = '0.002';
const quick = { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { done: true } }] };

/**
 * Files through the real stack: upload (the bytes decide the type), read back, the same bytes
 * again, the limits; another tenant sees none of it; a run's input resolves file parts into the
 * log's references; erasing runs releases their files, and the collector deletes a file and its
 * bytes only once no run refers to it.
 */
describe('files (POST /v1/files and the references runs keep)', () => {
  let stack: Stack;
  let otherKey: string;

  const upload = (bytes: Buffer | string, type = 'image/png', query = '', key?: string) =>
    stack.api(`/v1/files${query}`, {
      method: 'POST',
      headers: { 'content-type': type, ...(key && { authorization: `Bearer ${key}` }) },
      body: typeof bytes === 'string' ? bytes : new Uint8Array(bytes),
    });
  const uploaded = async (bytes: Buffer, type = 'image/png', query = '') => {
    const res = await upload(bytes, type, query);
    expect(res.status).toBe(201);
    return (await res.json()) as StoredFile;
  };
  const startWith = async (fileId: string, key?: string) =>
    stack.api('/v1/workflows/quick/runs', {
      method: 'POST',
      headers: key ? { authorization: `Bearer ${key}` } : {},
      body: JSON.stringify({ input: { files: [{ type: 'file', fileId, name: 'shot.png' }] } }),
    });
  const completedRun = async (fileId: string) => {
    const res = await startWith(fileId);
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    await eventually(async () =>
      expect(((await (await stack.api(`/v1/runs/${runId}`)).json()) as { status: string }).status).toBe('completed'),
    );
    return runId;
  };
  /** `DELETE` of a file a run refers to is refused, naming how many runs: what the dispatcher counted. */
  const referringRuns = async (fileId: string) => {
    const res = await stack.api(`/v1/files/${fileId}`, { method: 'DELETE' });
    if (res.status === 204) return 'deleted';
    const problem = (await res.json()) as { code: string; detail: string };
    expect(problem.code).toBe('conflict');
    return Number(/by (\d+) run/.exec(problem.detail)?.[1]);
  };
  const problemOf = async (res: Response) => ({ status: res.status, code: ((await res.json()) as { code: string }).code });

  beforeAll(async () => {
    stack = await startStack({
      namespacePrefix: 'files',
      serviceEnv: (s): Record<string, string> =>
        readsControlPlaneSettings(s)
          ? { SPINDLE_MAX_FILE_BYTES: String(MAX_FILE_BYTES), SPINDLE_UNREFERENCED_FILE_HOURS: GRACE_HOURS }
          : {},
    });
    expect((await stack.api('/v1/workflows/quick', { method: 'PUT', body: JSON.stringify(quick) })).status).toBe(201);
    expect((await stack.api('/v1/tenants', { method: 'POST', body: JSON.stringify({ id: 'globex', name: 'Globex' }) })).status).toBe(201);
    const made = await stack.api('/v1/keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'globex', scopes: ['runs:read', 'runs:write', 'workflows:write'], tenant: 'globex' }),
    });
    expect(made.status).toBe(201);
    otherKey = ((await made.json()) as { key: string }).key;
  }, 90_000);
  afterAll(() => stack?.stop());

  it('stores an upload once by content and answers its metadata and bytes', async () => {
    const bytes = png();
    const file = await uploaded(bytes, 'image/png', '?name=shot.png');
    expect(file).toEqual({
      fileId: expect.stringMatching(/^file_[a-z0-9]{26}$/),
      mediaType: 'image/png',
      bytes: bytes.length,
      sha256: fileSha256(bytes),
      name: 'shot.png',
      createdAt: expect.any(String),
    });
    expect(await (await stack.api(`/v1/files/${file.fileId}`)).json()).toEqual(file);
    const content = await stack.api(`/v1/files/${file.fileId}/content`);
    expect(content.status).toBe(200);
    expect({
      type: content.headers.get('content-type'),
      length: content.headers.get('content-length'),
      etag: content.headers.get('etag'),
      nosniff: content.headers.get('x-content-type-options'),
      disposition: content.headers.get('content-disposition'),
    }).toEqual({ type: 'image/png', length: String(bytes.length), etag: `"${file.sha256}"`, nosniff: 'nosniff', disposition: null });
    expect(Buffer.from(await content.arrayBuffer()).equals(bytes)).toBe(true);
    // The same bytes again (claimed as anything): the same file.
    expect(await uploaded(bytes, 'application/octet-stream')).toEqual(file);
    const { entries } = (await (await stack.api('/v1/audit?action=file.uploaded')).json()) as {
      entries: Array<{ target: { kind: string; id: string } }>;
    };
    expect(entries.filter((e) => e.target.id === file.fileId)).toHaveLength(2);
  });

  it('serves text as an attachment, typed by what the caller claims among the text types', async () => {
    const csv = await uploaded(Buffer.from(`a,b\n${randomBytes(8).toString('hex')},2\n`), 'text/csv');
    expect(csv.mediaType).toBe('text/csv');
    const content = await stack.api(`/v1/files/${csv.fileId}/content`);
    expect(content.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(content.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''${csv.fileId}`);
    await content.arrayBuffer();
  });

  it('refuses an empty body, bytes past the limit, a claim the bytes contradict and bytes of no allowed type', async () => {
    expect(await problemOf(await upload(''))).toEqual({ status: 400, code: 'validation_failed' });
    expect(await problemOf(await upload(Buffer.concat([png(), Buffer.alloc(MAX_FILE_BYTES)])))).toEqual({
      status: 413,
      code: 'payload_too_large',
    });
    expect(await problemOf(await upload(png(), 'image/jpeg'))).toEqual({ status: 415, code: 'unsupported_media_type' });
    expect(await problemOf(await upload(Buffer.from('just text'), 'image/png'))).toEqual({ status: 415, code: 'unsupported_media_type' });
    expect(await problemOf(await upload(Buffer.from([0, 1, 2, 3, 255, 254]), 'application/octet-stream'))).toEqual({
      status: 415,
      code: 'unsupported_media_type',
    });
    expect(await problemOf(await upload(png(), 'image/png', '?name=a%2Fb'))).toEqual({ status: 400, code: 'validation_failed' });
  });

  it('shows another tenant nothing of a file, and refuses its run naming one (404 file_not_found)', async () => {
    const bytes = png();
    const file = await uploaded(bytes);
    const as = { authorization: `Bearer ${otherKey}` };
    for (const [path, method] of [
      [`/v1/files/${file.fileId}`, 'GET'],
      [`/v1/files/${file.fileId}/content`, 'GET'],
      [`/v1/files/${file.fileId}`, 'DELETE'],
    ]) {
      expect({ path, method, ...(await problemOf(await stack.api(path, { method, headers: as }))) }).toEqual({
        path,
        method,
        status: 404,
        code: 'file_not_found',
      });
    }
    expect((await stack.api('/v1/workflows/quick', { method: 'PUT', headers: as, body: JSON.stringify(quick) })).status).toBe(201);
    const refused = await startWith(file.fileId, otherKey);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ code: 'file_not_found', errors: [{ field: 'input.files[0].fileId' }] });
    // Its own upload of the same bytes is its own file.
    const theirs = (await (await upload(bytes, 'image/png', '', otherKey)).json()) as StoredFile;
    expect(theirs.sha256).toBe(file.sha256);
    expect(theirs.fileId).not.toBe(file.fileId);
  });

  it("records the file's reference in run.queued; erasing the only run naming it lets the collector delete it and its bytes", async () => {
    const bytes = png();
    const file = await uploaded(bytes, 'image/png', '?name=stored.png');
    const runId = await completedRun(file.fileId);
    const { events } = (await (await stack.api(`/v1/runs/${runId}/events`)).json()) as { events: RunEvent[] };
    const queued = events[0] as Extract<RunEvent, { type: 'run.queued' }>;
    const ref: FileRef = {
      type: 'file',
      fileId: file.fileId,
      mediaType: 'image/png',
      bytes: bytes.length,
      sha256: file.sha256,
      name: 'shot.png',
    };
    expect(queued.data.input).toEqual({ files: [ref] });
    await eventually(async () => expect(await referringRuns(file.fileId)).toBe(1));

    expect((await stack.api(`/v1/runs/${runId}`, { method: 'DELETE' })).status).toBe(204);
    await eventually(
      async () => expect(await problemOf(await stack.api(`/v1/files/${file.fileId}`))).toEqual({ status: 404, code: 'file_not_found' }),
      400,
    );
    expect(await readFileBytes(stack.bus, file.sha256)).toBeUndefined();
  }, 60_000);

  it('keeps a file two runs refer to through the first erasure, and deletes it after the second', async () => {
    const bytes = png();
    const shared = await uploaded(bytes);
    const [first, second] = [await completedRun(shared.fileId), await completedRun(shared.fileId)];
    await eventually(async () => expect(await referringRuns(shared.fileId)).toBe(2));
    // A file no run refers to, uploaded after the runs used the shared one: once the collector took it, it has
    // also looked at the shared file past its grace.
    const probe = await uploaded(png());
    expect((await stack.api(`/v1/runs/${first}`, { method: 'DELETE' })).status).toBe(204);
    await eventually(async () => expect((await stack.api(`/v1/files/${probe.fileId}`)).status).toBe(404), 400);
    expect(await referringRuns(shared.fileId)).toBe(1);
    expect(Buffer.from((await readFileBytes(stack.bus, shared.sha256)) ?? []).equals(bytes)).toBe(true);

    expect((await stack.api(`/v1/runs/${second}`, { method: 'DELETE' })).status).toBe(204);
    await eventually(async () => expect((await stack.api(`/v1/files/${shared.fileId}`)).status).toBe(404), 400);
    expect(await readFileBytes(stack.bus, shared.sha256)).toBeUndefined();
  }, 90_000);

  it("resolves files in a person's answer and a thread run's input, and refuses another tenant's there too", async () => {
    const bytes = png();
    const file = await uploaded(bytes);
    const theirs = (await (await upload(png(), 'image/png', '', otherKey)).json()) as StoredFile;
    const ref = { type: 'file', fileId: file.fileId, mediaType: 'image/png', bytes: bytes.length, sha256: file.sha256 };
    const asks = {
      kind: 'graph',
      nodes: [{ id: 'photo', type: 'human', prompt: 'Send a photo', form: 'json', schema: { type: 'object' } }],
    };
    expect((await stack.api('/v1/workflows/asks', { method: 'PUT', body: JSON.stringify(asks) })).status).toBe(201);
    const { runId } = (await (await stack.api('/v1/workflows/asks/runs', { method: 'POST', body: '{}' })).json()) as { runId: string };
    const requestId = await eventually(async () => {
      const { requests } = (await (await stack.api(`/v1/runs/${runId}/requests`)).json()) as { requests: Array<{ requestId: string }> };
      expect(requests).toHaveLength(1);
      return requests[0].requestId;
    });
    const answer = (fileId: string) =>
      stack.api(`/v1/runs/${runId}/requests/${requestId}/respond`, {
        method: 'POST',
        body: JSON.stringify({ data: { photo: { type: 'file', fileId } } }),
      });
    const refused = await answer(theirs.fileId);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ code: 'file_not_found', errors: [{ field: 'data.photo.fileId' }] });
    expect((await answer(file.fileId)).status).toBe(202);
    const { events } = (await (await stack.api(`/v1/runs/${runId}/events`)).json()) as { events: RunEvent[] };
    expect(events.find((e) => e.type === 'input.answered')?.data).toMatchObject({ answer: { data: { photo: ref } } });

    const thread = ((await (await stack.api('/v1/threads', { method: 'POST', body: '{}' })).json()) as { threadId: string }).threadId;
    const threadRun = (fileId: string) =>
      stack.api(`/v1/threads/${thread}/runs`, {
        method: 'POST',
        body: JSON.stringify({ workflow: 'quick', input: { files: [{ type: 'file', fileId }] } }),
      });
    expect(await problemOf(await threadRun(theirs.fileId))).toEqual({ status: 404, code: 'file_not_found' });
    const started = await threadRun(file.fileId);
    expect(started.status).toBe(202);
    const threadRunId = ((await started.json()) as { runId: string }).runId;
    await eventually(async () => {
      const { events: log } = (await (await stack.api(`/v1/runs/${threadRunId}/events`)).json()) as { events: RunEvent[] };
      expect(log[0]).toMatchObject({ type: 'run.queued', data: { input: { files: [ref] } } });
    });
    await eventually(async () => expect(await referringRuns(file.fileId)).toBe(2));
  });

  it('keeps the bytes while another tenant still has a file of them', async () => {
    const bytes = png();
    const ours = await uploaded(bytes);
    const theirs = await upload(bytes, 'image/png', '', otherKey);
    expect(theirs.status).toBe(201);
    expect(await referringRuns(ours.fileId)).toBe('deleted');
    expect(Buffer.from((await readFileBytes(stack.bus, ours.sha256)) ?? []).equals(bytes)).toBe(true);
  });
});
