import { readFileBytes, type Bus } from '@spindle/bus';
import { isSpindleError, SNIFFABLE_MEDIA_TYPES } from '@spindle/contracts';
import { gatewayMigrations, type GatewayTables } from '@spindle/db';
import { createLogger } from '@spindle/telemetry';
import { openTestSchema, removeStreams, testBus, testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { FileCollector } from './file-collector';
import { FileLibrary } from './file-library';
import { FileReferencesRepository, FileRepository } from './file.repository';

const HOUR = 3_600_000;
const actor = { kind: 'key' as const, id: 'k1', name: 'ci' };
const png = (tag: string) => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(tag)]);

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    if (isSpindleError(e)) return e.code;
    throw e;
  }
}

describe('files on Postgres and the object store: upload, references, delete and the collector', () => {
  const namespace = testNamespace();
  let db: Kysely<GatewayTables>;
  let drop: () => Promise<void>;
  let bus: Bus;
  let files: FileRepository;
  let library: FileLibrary;
  let collector: FileCollector;
  const refs = new FileReferencesRepository();
  const refer = (runId: string, fileId: string) => db.transaction().execute((trx) => refs.addReferences(trx, [{ runId, fileId }]));
  const unrefer = (runId: string) => db.transaction().execute((trx) => refs.dropReferences(trx, [runId]));

  beforeAll(async () => {
    ({ db, drop } = await openTestSchema<GatewayTables>('gateway', namespace, gatewayMigrations));
    const now = new Date();
    for (const id of ['acme', 'globex'])
      await db.insertInto('tenants').values({ id, name: id, operator: false, created_at: now, updated_at: now }).execute();
    bus = await testBus(namespace, 'files-int');
    files = new FileRepository(db);
    library = new FileLibrary(bus, files, { maxBytes: 1_024, mediaTypes: new Set(SNIFFABLE_MEDIA_TYPES), unreferencedMs: 24 * HOUR });
    collector = new FileCollector(bus, files, 24 * HOUR, createLogger('files-int', { level: 'silent' }));
  });
  afterAll(async () => {
    await bus?.close();
    await removeStreams(namespace);
    await drop();
  });

  it('keeps an upload no run used for its grace, then deletes it and its bytes', async () => {
    const file = await library.upload({ tenant: 'acme', actor, bytes: png('unused') });
    expect(await collector.collect(new Date(Date.now() + 23 * HOUR))).toBe(0);
    expect(await readFileBytes(bus, file.sha256)).toBeDefined();
    expect(await collector.collect(new Date(Date.now() + 25 * HOUR))).toBe(1);
    expect(await codeOf(library.get('acme', file.fileId))).toBe('file_not_found');
    expect(await readFileBytes(bus, file.sha256)).toBeUndefined();
  });

  it('keeps a file while a run refers to it (409 on delete), however old; a use starts its grace again', async () => {
    const file = await library.upload({ tenant: 'acme', actor, bytes: png('referred') });
    await refer('run-1', file.fileId);
    // Twice from the log: one reference.
    await refer('run-1', file.fileId);
    expect(await files.referenceCount('acme', file.fileId)).toBe(1);
    expect(await collector.collect(new Date(Date.now() + 1_000 * HOUR))).toBe(0);
    expect(await codeOf(library.delete('acme', file.fileId))).toBe('conflict');
    await unrefer('run-1');
    // A start that names it marks it used now: collected a grace after that, not after the upload.
    expect((await library.lookup('acme')([file.fileId])).get(file.fileId)).toMatchObject({ sha256: file.sha256 });
    expect(await collector.collect(new Date(Date.now() + 23 * HOUR))).toBe(0);
    expect(await codeOf(library.delete('acme', file.fileId))).toBe('ok');
    expect(await readFileBytes(bus, file.sha256)).toBeUndefined();
  });

  it("deletes one tenant's file, keeping the bytes while another tenant's file names them; an upload puts erased bytes back", async () => {
    const bytes = png('shared bytes');
    const ours = await library.upload({ tenant: 'acme', actor, bytes });
    const theirs = await library.upload({ tenant: 'globex', actor, bytes });
    expect(theirs.fileId).not.toBe(ours.fileId);
    await library.delete('acme', ours.fileId);
    expect(Buffer.from((await library.content('globex', theirs.fileId)).bytes).equals(bytes)).toBe(true);
    await library.delete('globex', theirs.fileId);
    expect(await readFileBytes(bus, ours.sha256)).toBeUndefined();
    const again = await library.upload({ tenant: 'acme', actor, bytes });
    expect(again.fileId).toBe(ours.fileId);
    expect(Buffer.from((await library.content('acme', again.fileId)).bytes).equals(bytes)).toBe(true);
  });

  it('serialises an upload and an erasure of the same bytes: the file that stays always has its bytes', async () => {
    const bytes = png('race');
    for (let round = 0; round < 10; round++) {
      const first = await library.upload({ tenant: 'acme', actor, bytes });
      const [, second] = await Promise.all([library.delete('acme', first.fileId), library.upload({ tenant: 'globex', actor, bytes })]);
      expect(Buffer.from((await library.content('globex', second.fileId)).bytes).equals(bytes)).toBe(true);
      await library.delete('globex', second.fileId);
    }
  });

  it('adds no reference for an id of no file, and refuses an empty upload, an oversized one and a lying claim', async () => {
    await refer('run-2', 'file_aaaaaaaaaaaaaaaaaaaaaaaaaa');
    expect(await db.selectFrom('file_references').selectAll().where('run_id', '=', 'run-2').execute()).toEqual([]);
    expect(await codeOf(library.upload({ tenant: 'acme', actor, bytes: new Uint8Array() }))).toBe('validation_failed');
    expect(await codeOf(library.upload({ tenant: 'acme', actor, bytes: Buffer.concat([png('big'), Buffer.alloc(1_024)]) }))).toBe(
      'payload_too_large',
    );
    expect(await codeOf(library.upload({ tenant: 'acme', actor, bytes: png('lie'), claimedType: 'application/pdf' }))).toBe(
      'unsupported_media_type',
    );
  });
});
