// The six services `npm start` runs, with their health ports.
export const services = [
  { name: 'gateway', port: 'PORT', defaultPort: 8080 },
  { name: 'trace-recorder', port: 'TRACE_RECORDER_PORT', defaultPort: 8082 },
  { name: 'checkpoint', port: 'CHECKPOINT_PORT', defaultPort: 8083 },
  { name: 'approval', port: 'APPROVAL_PORT', defaultPort: 8084 },
  { name: 'dispatcher', port: 'DISPATCHER_PORT', defaultPort: 8085 },
  { name: 'runner', port: 'RUNNER_PORT', defaultPort: 8081 },
];

export const defaults = {
  NATS_URL: 'nats://127.0.0.1:4222',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
};
