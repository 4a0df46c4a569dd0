// Docker HEALTHCHECK for the one-image layout: asks the running service's /readyz.
// Each service reads its own port variable; the defaults match the services' own.
const PORTS = {
  gateway: ['PORT', 8080],
  runner: ['RUNNER_PORT', 8081],
  'trace-recorder': ['TRACE_RECORDER_PORT', 8082],
  checkpoint: ['CHECKPOINT_PORT', 8083],
  approval: ['APPROVAL_PORT', 8084],
  dispatcher: ['DISPATCHER_PORT', 8085],
};

const entry = PORTS[process.env.SERVICE ?? ''];
if (!entry) {
  console.error(`healthcheck: unknown SERVICE "${process.env.SERVICE ?? ''}"`);
  process.exit(1);
}
const [variable, fallback] = entry;
const port = process.env[variable] || fallback;

fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(4_000) }).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);
