import { readFileSync } from 'node:fs';

/**
 * `node bench/dist/soak/heap-diff.js <before.heapsnapshot> <after.heapsnapshot> [top]`: counts the
 * objects of two V8 heap snapshots by type and constructor name and prints those whose count or
 * size grew most — what a process retains per run between two points of a soak. Then the same for
 * the objects allocated after the first snapshot and alive at the second (node ids are stable
 * within one process): what the soak's runs left behind, whatever it displaced.
 */
interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] }; node_count: number };
  nodes: number[];
  strings: string[];
}

export interface Tally {
  count: number;
  bytes: number;
}

export function tallyByConstructor(snapshot: Snapshot, skipIds?: ReadonlySet<number>): Map<string, Tally> {
  const fields = snapshot.snapshot.meta.node_fields;
  const width = fields.length;
  const [typeAt, nameAt, sizeAt, idAt] = ['type', 'name', 'self_size', 'id'].map((f) => fields.indexOf(f));
  const types = snapshot.snapshot.meta.node_types[0];
  const tallies = new Map<string, Tally>();
  for (let i = 0; i < snapshot.nodes.length; i += width) {
    if (skipIds?.has(snapshot.nodes[i + idAt])) continue;
    const type = types[snapshot.nodes[i + typeAt]];
    // Strings and code are named by their content: group them by type only.
    const name =
      type === 'object' || type === 'closure' || type === 'native' ? `${type}:${snapshot.strings[snapshot.nodes[i + nameAt]]}` : type;
    const tally = tallies.get(name) ?? { count: 0, bytes: 0 };
    tally.count++;
    tally.bytes += snapshot.nodes[i + sizeAt];
    tallies.set(name, tally);
  }
  return tallies;
}

function nodeIds(snapshot: Snapshot): Set<number> {
  const fields = snapshot.snapshot.meta.node_fields;
  const idAt = fields.indexOf('id');
  const ids = new Set<number>();
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) ids.add(snapshot.nodes[i + idAt]);
  return ids;
}

function main() {
  const [beforeFile, afterFile, top = '40'] = process.argv.slice(2);
  if (!beforeFile || !afterFile) throw new Error('usage: heap-diff <before.heapsnapshot> <after.heapsnapshot> [top]');
  const beforeSnapshot = JSON.parse(readFileSync(beforeFile, 'utf8')) as Snapshot;
  const afterSnapshot = JSON.parse(readFileSync(afterFile, 'utf8')) as Snapshot;
  const before = tallyByConstructor(beforeSnapshot);
  const after = tallyByConstructor(afterSnapshot);
  const growth = [...after].map(([name, a]) => {
    const b = before.get(name) ?? { count: 0, bytes: 0 };
    return { name, count: a.count - b.count, bytes: a.bytes - b.bytes, total: a.count };
  });
  growth.sort((x, y) => y.bytes - x.bytes);
  console.log('Δ bytes\tΔ count\tcount after\ttype:constructor');
  for (const g of growth.slice(0, Number(top))) console.log(`${g.bytes}\t${g.count}\t${g.total}\t${g.name}`);
  const allocated = [...tallyByConstructor(afterSnapshot, nodeIds(beforeSnapshot))].sort((x, y) => y[1].bytes - x[1].bytes);
  console.log('\nallocated after the first snapshot, alive at the second\nbytes\tcount\ttype:constructor');
  for (const [name, t] of allocated.slice(0, Number(top))) console.log(`${t.bytes}\t${t.count}\t${name}`);
}

if (require.main === module) main();
