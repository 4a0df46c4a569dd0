import { parseRunnerConfig } from './runner.config';

describe('parseRunnerConfig', () => {
  it('keeps its defaults', () => {
    expect(parseRunnerConfig({})).toMatchObject({
      concurrency: 1_000,
      stepSlots: 16,
      ackWaitMs: 30_000,
      shutdownGraceMs: 25_000,
      shutdownDeadlineMs: 33_000,
      maxAttempts: 3,
      maxDeliver: 20,
      plugins: [],
      mcpAllow: '',
      captureGenAiContent: false,
    });
  });

  it('reads its variables', () => {
    const config = parseRunnerConfig({
      RUNNER_CONCURRENCY: '4',
      SPINDLE_PLUGINS: ' a.js, ,b.js',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
    });
    expect(config).toMatchObject({ concurrency: 4, plugins: ['a.js', 'b.js'], captureGenAiContent: true });
    expect(parseRunnerConfig({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: '0' }).captureGenAiContent).toBe(false);
  });

  it('refuses to start on a mistyped flag instead of reading it as false', () => {
    expect(() => parseRunnerConfig({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'yes' })).toThrow(
      /invalid environment for runner: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: must be true or false/,
    );
  });

  it.each([
    ['RUNNER_CONCURRENCY', '0'],
    ['RUNNER_ACK_WAIT_MS', '999'],
    ['RUN_MAX_STEPS', '1.5'],
    ['RUNNER_MAX_DELIVER', 'lots'],
  ])('refuses %s=%s, naming it', (name, value) => {
    expect(() => parseRunnerConfig({ [name]: value })).toThrow(new RegExp(`invalid environment for runner: ${name}: `));
  });
});
