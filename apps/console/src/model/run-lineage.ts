import type { LineageRun } from '@spindle/contracts';

/** One row of a drawn fork tree: the run, how deep it sits, and the guide drawn before it (`├─`, `└─`, `│ `). */
export interface ForkTreeRow {
  run: LineageRun;
  /** What is drawn before the run: a `│ ` or blank for each ancestor below the root, then `├─` or `└─` (empty for the root). */
  guide: string;
}

/**
 * The lineage's runs (depth first, as the API answers them) as the rows of a drawn tree: each
 * row's guide says whether more forks of the same run follow it, and which ancestors' do.
 */
export function forkTreeRows(runs: readonly LineageRun[]): ForkTreeRow[] {
  const lastAmongSiblings = runs.map((run, i) => {
    for (const later of runs.slice(i + 1)) {
      if (later.depth < run.depth) return true;
      if (later.depth === run.depth) return false;
    }
    return true;
  });
  // For each depth, whether the ancestor at that depth has more siblings below: its column keeps a `│`.
  const open: boolean[] = [];
  return runs.map((run, i) => {
    if (run.depth === 0) return { run, guide: '' };
    const last = lastAmongSiblings[i]!;
    const columns = open.slice(1, run.depth).map((more) => (more ? '│ ' : '  '));
    open[run.depth] = !last;
    open.length = run.depth + 1;
    return { run, guide: `${columns.join('')}${last ? '└─' : '├─'}` };
  });
}
