// For in-process tests: the runner's module and its config.
export { RunnerModule } from './app.module';
export { parseRunnerConfig } from './runner.config';
export type { RunnerConfig } from './runner.config';
