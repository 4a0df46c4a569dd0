import { availableParallelism } from 'node:os';
import { concurrentRows, dbosRows, mastraRows, persistedRows, ratio, versusRows } from './bench-rows';
import type { ChainFigures } from './chain-baseline';
import { isWrite, writesBetween, type PgReading } from './pg-writes';
import { fmt } from './stats';

const mastra: ChainFigures = {
  msPerStep: 2.5,
  nodesPerSec: 400,
  cpuPerNodeUs: [
    ['bench', 1500],
    ['postgres', 500],
  ],
  persistedPerStep: { statements: 2.06, rowsWritten: 2.04, walBytes: 2770.4, storedBytes: 431.4 },
};

describe("the peers' rows", () => {
  it("sets Mastra against this run's own figures, in the DBOS rows' words", () => {
    const rows = mastraRows(mastra, {
      spindleMsPerStep: 0.05,
      spindleEffectMsPerStep: 0.5,
      spindleNodesPerSec: 1200,
      spindleCpuPerNodeUs: 1000,
    });
    expect(rows).toEqual([
      ['Mastra per step, in process, Postgres storage (PostgresStore), sequential 50-step workflow, median ms', '2.500'],
      ['ratio engine / Mastra per step (pure steps; steps with effects, each durable before it runs)', '0.02; 0.20'],
      ['steps/s, Mastra, 20 concurrent 50-step workflows, median of 3', '400'],
      ['ratio stack / Mastra nodes/s (the stack with its log, trace, checkpoints, requests and control plane on)', '3.00'],
      ['CPU per node, all processes, 20 concurrent runs, Mastra, µs (by process)', '2,000 (bench 1,500, postgres 500)'],
      [`nodes/s ${availableParallelism()} cores allow at that CPU per node, Mastra`, fmt(availableParallelism() * 500, 0)],
      ['ratio stack / Mastra CPU per node, all processes', '0.50'],
      ['CPU per step, 20 concurrent runs, Mastra: this process + Postgres backends, µs', '2,000 (this process 1,500, postgres 500)'],
      ['Postgres per step, 20 concurrent runs, Mastra: statements / rows written / WAL bytes / bytes stored', '2.06 / 2.04 / 2,770 / 431'],
    ]);
  });

  it('says which ratios this run did not measure, and keeps the DBOS wording', () => {
    const rows = dbosRows({ ...mastra, persistedPerStep: undefined }, {});
    expect(rows[0]?.[0]).toBe('DBOS per step, in process, Postgres system database, sequential 50-step workflow, median ms');
    expect(rows[1]).toEqual([
      'ratio engine / DBOS per step (pure steps; steps with effects, each durable before it runs)',
      'not measured in this run; not measured in this run',
    ]);
    expect(rows).toContainEqual(['ratio stack / DBOS CPU per node, all processes', 'not measured in this run']);
    expect(ratio(3, 2)).toBe('1.50');
  });

  it("adds LangGraph.js durability 'sync' next to its default, and each one's writes per step", () => {
    const versus = versusRows({ spindleMsPerStep: 0.1, spindleEffectMsPerStep: 0.4, langgraphMsPerStep: 1, langgraphSyncMsPerStep: 2 });
    expect(versus.slice(-2)).toEqual([
      ["LangGraph.js per step, durability 'sync' (each checkpoint written before the next step), median ms", '2.000'],
      ["ratio engine / LangGraph.js durability 'sync' (pure steps; steps with effects)", '0.05; 0.20'],
    ]);
    const writes = { statements: 4, rowsWritten: 3, walBytes: 1000, storedBytes: 800 };
    const rows = concurrentRows({
      spindle: { nodesPerSec: 1000, cpuPerNodeUs: [], persistedPerNode: writes },
      langgraph: { nodesPerSec: 500, cpuPerNodeUs: [], persistedPerStep: writes },
      langgraphSync: { nodesPerSec: 250, cpuPerNodeUs: [] },
    });
    expect(rows.map(([title]) => title)).toEqual([
      'nodes/s, 20 concurrent 50-node runs through the stack, median of 3',
      'nodes/s, LangGraph.js + PostgresSaver, 20 concurrent invocations, median of 3',
      'ratio stack / LangGraph.js nodes/s',
      "nodes/s, LangGraph.js + PostgresSaver, durability 'sync', 20 concurrent invocations, median of 3",
      "ratio stack / LangGraph.js durability 'sync' nodes/s",
      'Postgres per step, 20 concurrent runs, stack: statements / rows written / WAL bytes / bytes stored',
      'Postgres per step, 20 concurrent runs, LangGraph.js: statements / rows written / WAL bytes / bytes stored',
    ]);
    expect(rows[4]?.[1]).toBe('4.0');
    expect(persistedRows('x', undefined)).toEqual([]);
  });
});

describe('Postgres writes between two readings', () => {
  const reading = (entries: Array<[string, string, number, number, number]>, storedBytes: number): PgReading => ({
    statements: new Map(entries.map(([key, query, calls, rows, walBytes]) => [key, { query, calls, rows, walBytes }])),
    storedBytes,
  });

  it("counts per step what the statements did in between, and leaves the probe's own out", () => {
    const upsert = 'INSERT INTO snapshot (id, body) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET body = excluded.body';
    const before = reading(
      [
        ['1', upsert, 10, 10, 5_000],
        ['2', 'select * from snapshot where id = $1', 5, 5, 0],
        ['3', 'select /* bench:pg-writes */ current_database()', 1, 1, 0],
      ],
      8_192,
    );
    const after = reading(
      [
        ['1', upsert, 110, 110, 105_000],
        ['2', 'select * from snapshot where id = $1', 55, 55, 0],
        ['3', 'select /* bench:pg-writes */ current_database()', 2, 2, 0],
        ['4', 'COMMIT', 50, 0, 0],
      ],
      8_192 + 40_960,
    );
    expect(writesBetween(before, after, 100)).toEqual({ statements: 2, rowsWritten: 1, walBytes: 1_000, storedBytes: 409.6 });
  });

  it('counts an entry evicted and made again in between from zero', () => {
    const before = reading([['1', 'update t set v = $1', 500, 500, 50_000]], 0);
    const after = reading([['1', 'update t set v = $1', 20, 20, 2_000]], 0);
    expect(writesBetween(before, after, 10)).toEqual({ statements: 2, rowsWritten: 2, walBytes: 200, storedBytes: 0 });
  });

  it('voids the statements when pg_stat_statements was reset in between', () => {
    const before = { ...reading([['1', 'insert into t values ($1)', 10, 10, 100]], 0), statementsEpoch: '2026-01-01 10:00' };
    const after = { ...reading([['1', 'insert into t values ($1)', 3, 3, 30]], 50), statementsEpoch: '2026-01-01 10:05' };
    const writes = writesBetween(before, after, 10);
    expect([writes.statements, writes.rowsWritten, writes.walBytes].every(Number.isNaN)).toBe(true);
    expect(writes.storedBytes).toBe(5);
  });

  it('gives the bytes stored alone without pg_stat_statements', () => {
    const writes = writesBetween({ storedBytes: 0 }, { storedBytes: 1_000 }, 10);
    expect(writes.storedBytes).toBe(100);
    expect([writes.statements, writes.rowsWritten, writes.walBytes].every(Number.isNaN)).toBe(true);
  });

  it('knows a write by its statement', () => {
    expect(isWrite('INSERT INTO t VALUES ($1)')).toBe(true);
    expect(isWrite('/* dbos */ update "dbos"."workflow_status" set status = $1')).toBe(true);
    expect(isWrite('  delete from t where id = $1')).toBe(true);
    expect(isWrite('WITH moved AS (DELETE FROM a RETURNING *) INSERT INTO b SELECT * FROM moved')).toBe(true);
    expect(isWrite('with x as (select 1) select * from x')).toBe(false);
    expect(isWrite('SELECT * FROM checkpoints WHERE thread_id = $1')).toBe(false);
    expect(isWrite('BEGIN')).toBe(false);
  });
});
