#!/usr/bin/env node
// Writes deploy/nats/spindle-authorization.conf: one NATS user per Spindle service with its
// subject permissions (libs/bus natsPermissions), passwords read by the server from its
// environment (SPINDLE_NATS_<SERVICE>_PASSWORD). Run after changing the permissions; a test
// fails while the committed file differs from what this writes.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { busNames } = require('../libs/contracts/dist/index.js');
const { natsAuthorizationFile } = require('../libs/bus/dist/index.js');

writeFileSync(new URL('../deploy/nats/spindle-authorization.conf', import.meta.url), natsAuthorizationFile(busNames('')));
console.log('wrote deploy/nats/spindle-authorization.conf');
