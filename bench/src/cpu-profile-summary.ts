/** The parts of a V8 `.cpuprofile` (what `node --cpu-prof` writes) a summary reads. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  /** When sampling began, µs on the machine's monotonic clock (what `process.hrtime` reads, in every process). */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A span of the monotonic clock, µs: only the samples in it count (the measured rounds, not the start-up). */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

export interface FrameTime {
  /** `function (file:line)`, the file relative to the repository or `node_modules/<package>/…`. */
  frame: string;
  /** Self time, ms. */
  ms: number;
  /** Share of the profile's sampled time. */
  share: number;
}

export interface ProfileSummary {
  /** Sampled time, ms (idle included). */
  totalMs: number;
  /** Time not idle, ms: what the process spent working. */
  busyMs: number;
  /** Self time by frame, largest first. */
  frames: FrameTime[];
  /** Self time by where the code lives (a package, a lib, an app, node's own, the engine's GC), largest first. */
  places: FrameTime[];
}

/** V8's pseudo-frame for the process waiting (`(program)`, native work outside JS, counts as busy). */
const IDLE = new Set(['(idle)']);

/** Self time by frame and by place of one profile (of the samples in `window`, if given), the `top` largest of each. */
export function summarizeCpuProfile(profile: CpuProfile, root: string, top = 15, window?: ProfileWindow): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfMs = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    selfMs.set(id, (selfMs.get(id) ?? 0) + delta / 1000);
  });
  const frames = new Map<string, number>();
  const places = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  for (const [id, ms] of selfMs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    totalMs += ms;
    if (IDLE.has(functionName)) idleMs += ms;
    const file = shortFile(url, root);
    const frame = file ? `${functionName || '(anonymous)'} (${file}:${lineNumber + 1})` : functionName;
    frames.set(frame, (frames.get(frame) ?? 0) + ms);
    const place = placeOf(file, functionName);
    places.set(place, (places.get(place) ?? 0) + ms);
  }
  const busyMs = totalMs - idleMs;
  const ranked = (m: Map<string, number>) =>
    [...m]
      .filter(([name]) => !IDLE.has(name))
      .map(([frame, ms]) => ({ frame, ms, share: busyMs > 0 ? ms / busyMs : 0 }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top);
  return { totalMs, busyMs, frames: ranked(frames), places: ranked(places) };
}

function shortFile(url: string, root: string): string {
  const path = url.replace(/^file:\/\//, '');
  if (!path) return '';
  const inModules = path.lastIndexOf('/node_modules/');
  if (inModules >= 0) return path.slice(inModules + 1);
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}

/** `node_modules/@scope/pkg`, `libs/<lib>`, `apps/<app>`, `node:<module>`, or the V8 pseudo-frame (GC). */
function placeOf(file: string, functionName: string): string {
  if (!file) return functionName;
  const pkg = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (pkg) return pkg[1]!;
  const ours = /^(libs|apps)\/([^/]+)/.exec(file);
  if (ours) return `${ours[1]}/${ours[2]}`;
  if (file.startsWith('node:')) return file.split(/[/:]/).slice(0, 2).join(':');
  return file;
}
