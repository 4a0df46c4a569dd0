/**
 * A reader that stops early (`spindle runs list | head -1`) closes the pipe under the CLI's output,
 * and the next write fails with `EPIPE`, emitted as an `error` event on the stream: unhandled, it
 * crashes the process with a stack trace. Nobody is left to read anything more, and the reader
 * got what it asked for, so the CLI exits at once with 0 and prints nothing. Any other error of
 * the stream is thrown as before.
 */
export function exitQuietlyOnBrokenPipe(stream: NodeJS.EventEmitter, exit: (code: 0) => void): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    exit(0);
  });
}
