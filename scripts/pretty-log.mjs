// Turns a service's JSON log lines into one readable, prefixed line each.
const colors = [36, 35, 33, 32, 34, 31];
const levelColor = { fatal: 31, error: 31, warn: 33, info: 32, debug: 90, trace: 90 };
const hidden = new Set(['level', 'time', 'service', 'pid', 'hostname', 'msg', 'context']);

export function prefixer(name, index, width, raw) {
  const tag = `\x1b[${colors[index % colors.length]}m${name.padEnd(width)}\x1b[0m │ `;
  return (line) => {
    if (raw || !line.startsWith('{')) return tag + line;
    try {
      const j = JSON.parse(line);
      const time = typeof j.time === 'string' ? j.time.slice(11, 23) : '';
      const level = `\x1b[${levelColor[j.level] ?? 0}m${String(j.level ?? '').padEnd(5)}\x1b[0m`;
      const extra = Object.entries(j)
        .filter(([k]) => !hidden.has(k))
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(' ');
      return `${tag}${time} ${level} ${j.context ? `[${j.context}] ` : ''}${j.msg ?? ''}${extra ? `  \x1b[90m${extra}\x1b[0m` : ''}`;
    } catch {
      return tag + line;
    }
  };
}
