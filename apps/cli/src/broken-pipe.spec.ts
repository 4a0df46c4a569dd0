import { execFileSync, spawn } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitQuietlyOnBrokenPipe } from './broken-pipe';

describe('exitQuietlyOnBrokenPipe', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spindle-pipe-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 0 when the reader of a real pipe stops early (`| head -n 1`) and the next write fails with EPIPE', async () => {
    // A named pipe: the writer's end stays ours when the reader exits (a child's stdin is destroyed with it).
    const fifo = join(dir, 'out');
    execFileSync('mkfifo', [fifo]);
    const head = spawn('head', ['-n', '1', fifo], { stdio: 'ignore' });
    const out = createWriteStream(fifo);
    const exited = new Promise<number>((resolve) => exitQuietlyOnBrokenPipe(out, resolve));
    out.write('the first line\n');
    await once(head, 'exit');
    out.write('a line nobody reads\n');
    await expect(exited).resolves.toBe(0);
  });

  it('lets any other error of the stream through', () => {
    const stream = new EventEmitter();
    const exit = jest.fn();
    exitQuietlyOnBrokenPipe(stream, exit);
    const full = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    expect(() => stream.emit('error', full)).toThrow('no space left on device');
    expect(exit).not.toHaveBeenCalled();
  });
});
