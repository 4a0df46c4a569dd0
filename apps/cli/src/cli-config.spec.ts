import { join } from 'node:path';
import { resolveCliConfig } from './cli-config';

const files = (entries: Record<string, string>) => (path: string) => entries[path];

describe('resolveCliConfig', () => {
  it('defaults to the local gateway and the nearest .spindle/admin-key above the working folder', () => {
    const config = resolveCliConfig({
      flags: {},
      env: {},
      cwd: '/repo/apps/cli',
      readText: files({ [join('/repo', '.spindle', 'admin-key')]: 'spk_a_b\n' }),
    });
    expect(config).toEqual({
      baseUrl: 'http://127.0.0.1:8080',
      urlSource: 'default',
      token: 'spk_a_b',
      tokenSource: join('/repo', '.spindle', 'admin-key'),
    });
  });

  it('takes SPINDLE_URL and SPINDLE_TOKEN over the key file, and flags over both', () => {
    const sources = { cwd: '/repo', readText: files({ '/repo/.spindle/admin-key': 'file-key' }) };
    const env = { SPINDLE_URL: 'http://gw:9000/', SPINDLE_TOKEN: 'env-key' };
    expect(resolveCliConfig({ ...sources, flags: {}, env })).toMatchObject({
      baseUrl: 'http://gw:9000',
      urlSource: 'SPINDLE_URL',
      token: 'env-key',
      tokenSource: 'SPINDLE_TOKEN',
    });
    expect(resolveCliConfig({ ...sources, flags: { url: 'http://x:1', token: 'flag-key' }, env })).toMatchObject({
      baseUrl: 'http://x:1',
      urlSource: '--url',
      token: 'flag-key',
    });
  });

  it('sends no token when there is none anywhere', () => {
    expect(resolveCliConfig({ flags: {}, env: { SPINDLE_TOKEN: '' }, cwd: '/a/b', readText: files({}) }).token).toBeUndefined();
  });
});
