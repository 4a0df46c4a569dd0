import type { RunEvent } from '@spindle/contracts';
import { ExitCode, exitCodeOfStatus, exitCodeOfTerminal } from './exit-codes';

const terminal = (type: string, data: Record<string, unknown>) => ({ type, data }) as unknown as RunEvent;
const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

describe('exit codes', () => {
  it('says how a followed run ended', () => {
    expect(exitCodeOfTerminal(terminal('run.completed', { output: {}, durationMs: 1, usage }))).toBe(ExitCode.ok);
    expect(exitCodeOfTerminal(terminal('run.failed', { error: { code: 'node_failed', message: '' }, durationMs: 1 }))).toBe(1);
    expect(exitCodeOfTerminal(terminal('run.failed', { error: { code: 'run_timeout', message: '' }, durationMs: 1 }))).toBe(4);
    expect(exitCodeOfTerminal(terminal('run.canceled', {}))).toBe(3);
    expect(() => exitCodeOfTerminal(terminal('node.started', {}))).toThrow(/not a terminal event/);
  });

  it('reads a run status the same way, a run still going being no failure', () => {
    expect(exitCodeOfStatus('completed')).toBe(0);
    expect(exitCodeOfStatus('awaiting_input')).toBe(0);
    expect(exitCodeOfStatus('failed', 'run_timeout')).toBe(4);
    expect(exitCodeOfStatus('canceled')).toBe(3);
  });
});
