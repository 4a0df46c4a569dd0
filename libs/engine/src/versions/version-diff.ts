import { canonicalJson, type FieldChange, type VersionDiff } from '@spindle/contracts';
import { createTwoFilesPatch } from 'diff';

/**
 * Past this many inserted plus deleted lines, or this much time, the text diff is left out
 * (`text: null`): Myers' algorithm costs time in proportion to both lengths times the edits, and
 * a diff that long is read as "rewritten" anyway. The structural changes are always complete.
 */
export const MAX_TEXT_DIFF_EDITS = 1_000;
const MAX_TEXT_DIFF_MS = 500;

/** One step of a path: an object key, an array index, or the key an array element is known by. */
type Segment = { kind: 'key'; key: string } | { kind: 'index'; index: number } | { kind: 'element'; array: string; key: string };

interface RawChange {
  readonly op: FieldChange['op'];
  readonly path: readonly Segment[];
  readonly before?: unknown;
  readonly after?: unknown;
}

/**
 * What changed between two versions of a definition (a workflow, or an agent spec). Changes are
 * structural: arrays of nodes are matched by `id`, of edges by `from->to:handle`, of agents and
 * tools by `name` (or catalog `ref`), so inserting a node is one `added`, not every later node `changed`. Paths are
 * JSON-Pointer-like (`/nodes/draft/prompt`), with an element's key in place of its index.
 */
export function diffVersions(before: unknown, after: unknown, labels: { before: string; after: string }): VersionDiff {
  const raw: RawChange[] = [];
  walk(before, after, [], raw);
  const text = createTwoFilesPatch(labels.before, labels.after, indented(before), indented(after), undefined, undefined, {
    context: 3,
    maxEditLength: MAX_TEXT_DIFF_EDITS,
    timeout: MAX_TEXT_DIFF_MS,
  });
  return {
    identical: raw.length === 0,
    nodes: nodeSummary(raw),
    edges: {
      added: raw.filter((c) => c.op === 'added' && endsAtElementOf(c.path, 'edges')).map((c) => lastKey(c.path)),
      removed: raw.filter((c) => c.op === 'removed' && endsAtElementOf(c.path, 'edges')).map((c) => lastKey(c.path)),
    },
    changes: raw.map(toFieldChange),
    text: text ?? null,
  };
}

function walk(before: unknown, after: unknown, path: Segment[], out: RawChange[]): void {
  if (isRecord(before) && isRecord(after)) {
    for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      const at: Segment[] = [...path, { kind: 'key', key }];
      const was = Object.hasOwn(before, key) ? before[key] : absentArrayLike(after[key]);
      const now = Object.hasOwn(after, key) ? after[key] : absentArrayLike(before[key]);
      if (now === undefined) out.push({ op: 'removed', path: at, before: was });
      else if (was === undefined) out.push({ op: 'added', path: at, after: now });
      else walk(was, now, at, out);
    }
  } else if (Array.isArray(before) && Array.isArray(after)) {
    walkArray(before, after, path, out);
  } else if (!Object.is(before, after)) {
    out.push({ op: 'changed', path, before, after });
  }
}

/**
 * A list that is absent on one side compares as empty against a non-empty one (`edges` left out
 * means none), so its elements are listed one by one; `undefined` otherwise.
 */
const absentArrayLike = (other: unknown): unknown[] | undefined => (Array.isArray(other) && other.length > 0 ? [] : undefined);

function walkArray(before: unknown[], after: unknown[], path: Segment[], out: RawChange[]): void {
  const keyOf = elementKey(before, after);
  if (!keyOf) {
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      const at: Segment[] = [...path, { kind: 'index', index: i }];
      if (i >= after.length) out.push({ op: 'removed', path: at, before: before[i] });
      else if (i >= before.length) out.push({ op: 'added', path: at, after: after[i] });
      else walk(before[i], after[i], at, out);
    }
    return;
  }
  const array = lastName(path);
  const was = new Map(before.map((e) => [keyOf(e), e]));
  const now = new Map(after.map((e) => [keyOf(e), e]));
  for (const [key, element] of was) {
    const at: Segment[] = [...path, { kind: 'element', array, key }];
    if (!now.has(key)) out.push({ op: 'removed', path: at, before: element });
    else walk(element, now.get(key), at, out);
  }
  for (const [key, element] of now)
    if (!was.has(key)) out.push({ op: 'added', path: [...path, { kind: 'element', array, key }], after: element });
}

/** How the elements of both arrays are known, when every one of them has a unique key of one kind. */
function elementKey(before: unknown[], after: unknown[]): ((e: unknown) => string) | undefined {
  const all = [...before, ...after];
  if (all.length === 0 || !all.every(isRecord)) return undefined;
  const records = all as Array<Record<string, unknown>>;
  const candidates: Array<(e: Record<string, unknown>) => string | undefined> = [
    (e) => (typeof e.id === 'string' ? e.id : undefined),
    (e) =>
      typeof e.from === 'string' && typeof e.to === 'string'
        ? `${e.from}->${e.to}${typeof e.handle === 'string' ? `:${e.handle}` : ''}`
        : undefined,
    // A pattern's agents: inline by name, from the catalog by `ref` (so a pin's change reads `/agents/writer/version`).
    (e) => (typeof e.name === 'string' ? e.name : typeof e.ref === 'string' ? e.ref : undefined),
  ];
  for (const candidate of candidates) {
    const unique = (list: unknown[]) => {
      const keys = (list as Array<Record<string, unknown>>).map(candidate);
      return keys.every((k) => k !== undefined) && new Set(keys).size === keys.length;
    };
    if (records.every((e) => candidate(e) !== undefined) && unique(before) && unique(after))
      return (e) => candidate(e as Record<string, unknown>) as string;
  }
  return undefined;
}

/** Nodes are the elements of any `nodes` array (nested loop bodies and fork branches included). */
function nodeSummary(raw: RawChange[]): VersionDiff['nodes'] {
  const added = new Set<string>();
  const removed = new Set<string>();
  const changed = new Set<string>();
  for (const change of raw) {
    const at = change.path.findLastIndex((s) => s.kind === 'element' && s.array === 'nodes');
    if (at < 0) continue;
    const id = (change.path[at] as { key: string }).key;
    if (at === change.path.length - 1 && change.op === 'added') added.add(id);
    else if (at === change.path.length - 1 && change.op === 'removed') removed.add(id);
    else changed.add(id);
  }
  return { added: [...added], removed: [...removed], changed: [...changed].filter((id) => !added.has(id) && !removed.has(id)) };
}

const endsAtElementOf = (path: readonly Segment[], array: string): boolean => {
  const last = path.at(-1);
  return last?.kind === 'element' && last.array === array;
};
const lastKey = (path: readonly Segment[]): string => (path.at(-1) as { key: string }).key;
const lastName = (path: readonly Segment[]): string => {
  const last = path.at(-1);
  return last?.kind === 'key' ? last.key : '';
};

function toFieldChange(change: RawChange): FieldChange {
  const path = change.path.map((s) => `/${escapePointer(s.kind === 'index' ? String(s.index) : s.key)}`).join('');
  if (change.op === 'added') return { op: 'added', path, after: change.after };
  if (change.op === 'removed') return { op: 'removed', path, before: change.before };
  return { op: 'changed', path, before: change.before, after: change.after };
}

/** RFC 6901: `~` and `/` inside a segment. */
const escapePointer = (segment: string): string => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** Sorted keys, two-space indent: the same definition always prints the same lines. */
const indented = (value: unknown): string => `${JSON.stringify(JSON.parse(canonicalJson(value)), null, 2)}\n`;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
