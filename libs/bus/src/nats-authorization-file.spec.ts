import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { busNames } from '@spindle/contracts';
import { natsAuthorizationFile } from './nats-permissions';

describe('deploy/nats/spindle-authorization.conf', () => {
  it('is what the permissions in code say (regenerate with node scripts/nats-authorization.mjs)', () => {
    const committed = readFileSync(join(__dirname, '../../../deploy/nats/spindle-authorization.conf'), 'utf8');
    expect(committed).toBe(natsAuthorizationFile(busNames('')));
  });
});
