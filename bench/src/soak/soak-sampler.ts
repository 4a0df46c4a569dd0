import { readFileSync } from 'node:fs';
import { metricValue, type ServiceProcess } from '@spindle/testing';

/** One service's memory at one point of the soak. */
export interface MemorySample {
  runs: number;
  /** VmRSS of the process, MiB. */
  rssMiB: number;
  /** V8 heap in use as the service reports it at /metrics, MiB (NaN when the scrape fails). */
  heapMiB: number;
  /** V8 heap space taken (in use or not) and memory outside it (Buffers), MiB: where RSS beyond the heap in use sits. */
  heapTotalMiB: number;
  externalMiB: number;
}

const MiB = 1024 * 1024;

/** VmRSS of a live process in MiB, from /proc (Linux only). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
  return kib / 1024;
}

export async function sampleService(service: ServiceProcess, runs: number): Promise<MemorySample> {
  const text = await fetch(`http://127.0.0.1:${service.port}/metrics`)
    .then((r) => r.text())
    .catch(() => '');
  const mib = (name: string) => (metricValue(text, `spindle_nodejs_${name}`) ?? Number.NaN) / MiB;
  return {
    runs,
    rssMiB: service.child.pid === undefined ? Number.NaN : rssMiB(service.child.pid),
    heapMiB: mib('heap_size_used_bytes'),
    heapTotalMiB: mib('heap_size_total_bytes'),
    externalMiB: mib('external_memory_bytes'),
  };
}

/** Least-squares slope of `value` over runs, per 1,000 runs. */
export function slopePerThousand(samples: MemorySample[], value: (s: MemorySample) => number): number {
  const points = samples.filter((s) => Number.isFinite(value(s)));
  if (points.length < 2) return Number.NaN;
  const meanX = points.reduce((a, s) => a + s.runs, 0) / points.length;
  const meanY = points.reduce((a, s) => a + value(s), 0) / points.length;
  const num = points.reduce((a, s) => a + (s.runs - meanX) * (value(s) - meanY), 0);
  const den = points.reduce((a, s) => a + (s.runs - meanX) ** 2, 0);
  return (num / den) * 1_000;
}
