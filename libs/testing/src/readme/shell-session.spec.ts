import { ShellSession } from './shell-session';

describe('a shell session', () => {
  let shell: ShellSession;
  beforeAll(() => {
    shell = new ShellSession({ cwd: __dirname, env: { PATH: process.env.PATH ?? '' } });
  });
  afterAll(() => shell.close());

  it('runs scripts one after another in one bash: variables carry over, each with its own output and status', async () => {
    expect(await shell.run('GREETING="Hello Ada"; printf \'{"a":1}\'')).toEqual({ status: 0, stdout: '{"a":1}', stderr: '' });
    expect(await shell.run('echo "$GREETING"\necho oops >&2\nfalse')).toMatchObject({ status: 1, stdout: 'Hello Ada\n' });
  });

  it('gives the scripts no stdin, so a command that reads it does not eat the session', async () => {
    expect(await shell.run('cat; echo after')).toEqual({ status: 0, stdout: 'after\n', stderr: '' });
  });
});
