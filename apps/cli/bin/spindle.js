#!/usr/bin/env node
// The `spindle` command: a shim so `npx spindle` finds the CLI once the repo is built.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const main = join(__dirname, '..', 'dist', 'main.js');
if (!existsSync(main)) {
  process.stderr.write(`spindle: the CLI is not built (${main} is missing). Run \`npm run build\` in the repository first.\n`);
  process.exit(2);
}
require(main);
