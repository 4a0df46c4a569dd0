import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ShellResult {
  /** Exit status of the script's last command. */
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * One bash, as a reader's terminal: scripts run one after another in the same shell, so a variable
 * one sets (`AUTH`, `RUN`) is there for the next. Each script's stdin is /dev/null.
 */
export class ShellSession {
  private readonly bash: ChildProcessWithoutNullStreams;
  private readonly scripts = mkdtempSync(join(tmpdir(), 'spindle-shell-'));
  private stdout = '';
  private stderr = '';
  private count = 0;
  private waiting?: () => void;
  private exited = false;

  constructor(opts: { cwd: string; env: Record<string, string> }) {
    this.bash = spawn('bash', ['--noprofile', '--norc'], { cwd: opts.cwd, env: opts.env, stdio: 'pipe' });
    this.bash.stdout.setEncoding('utf8').on('data', (chunk: string) => this.received('stdout', chunk));
    this.bash.stderr.setEncoding('utf8').on('data', (chunk: string) => this.received('stderr', chunk));
    this.bash.once('exit', () => {
      this.exited = true;
      this.waiting?.();
    });
  }

  /** Runs `script` in the session and resolves once it has finished. */
  async run(script: string): Promise<ShellResult> {
    if (this.exited) throw new Error('the shell has exited');
    const n = ++this.count;
    const file = join(this.scripts, `script-${n}.sh`);
    writeFileSync(file, `${script}\n`);
    const marker = `__spindle_script_${n}_done__`;
    this.stdout = '';
    this.stderr = '';
    // The marker closes both streams: stderr arrives on its own pipe, maybe after stdout's marker.
    this.bash.stdin.write(`source '${file}' </dev/null; printf '\\n${marker} %d\\n' $?; printf '\\n${marker}\\n' >&2\n`);
    const stdoutEnd = new RegExp(`\\n${marker} (\\d+)\\n$`);
    const stderrEnd = `\n${marker}\n`;
    for (;;) {
      const done = stdoutEnd.exec(this.stdout);
      if (done && this.stderr.endsWith(stderrEnd)) {
        return { status: Number(done[1]), stdout: this.stdout.slice(0, done.index), stderr: this.stderr.slice(0, -stderrEnd.length) };
      }
      if (this.exited) throw new Error(`the shell exited while running: ${script}\n${this.stderr}`);
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  close(): void {
    if (!this.exited) this.bash.kill('SIGTERM');
    rmSync(this.scripts, { recursive: true, force: true });
  }

  private received(stream: 'stdout' | 'stderr', chunk: string): void {
    if (stream === 'stdout') this.stdout += chunk;
    else this.stderr += chunk;
    const wake = this.waiting;
    this.waiting = undefined;
    wake?.();
  }
}
