import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** Starts PGlite with pgvector in a child process (tests and the bench): its Postgres URL, and how to stop it. */
export async function startPgliteVector(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [join(__dirname, '..', 'src', 'pglite-vector-server.cjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', (code) => reject(new Error(`PGlite exited with ${code}`)));
  });
  return {
    url: `postgres://postgres@${address}/postgres`,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}
