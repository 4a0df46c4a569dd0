import nx from '@nx/eslint-plugin';

// Dependencies point one way: contracts <- engine <- adapters <- apps.
// libs/engine and libs/contracts do no I/O; the banned imports below make a slip a lint error.
const ioModules = [
  '@nestjs/*',
  'kysely',
  'pg',
  '@nats-io/*',
  'nats',
  'ai',
  '@ai-sdk/*',
  'undici',
  'pino',
  'fs',
  'node:fs',
  'fs/promises',
  'node:fs/promises',
  'http',
  'node:http',
  'https',
  'node:https',
  'net',
  'node:net',
  'child_process',
  'node:child_process',
  '@opentelemetry/*',
];

const natsOutsideTheBus = { group: ['@nats-io/*'], message: 'Talk to NATS through libs/bus.' };

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  { ignores: ['**/dist', '**/node_modules', 'tmp', '.nx', '**/jest.config.cjs', 'jest.preset.cjs'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            { sourceTag: 'type:core', onlyDependOnLibsWithTags: ['type:core'] },
            { sourceTag: 'type:adapter', onlyDependOnLibsWithTags: ['type:core', 'type:adapter'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:core', 'type:adapter', 'type:client'] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:core', 'type:adapter', 'type:testing', 'type:client', 'type:sdk'] },
            // The HTTP client is published and runs in browsers: contracts only.
            { sourceTag: 'type:client', onlyDependOnLibsWithTags: ['type:core'] },
            // The workflow SDK is published and installed alone: it depends on no lib.
            { sourceTag: 'type:sdk', onlyDependOnLibsWithTags: [] },
            // The console runs in a browser and speaks only the public HTTP API, through the client.
            { sourceTag: 'type:ui', onlyDependOnLibsWithTags: ['type:core', 'type:client'] },
          ],
        },
      ],
      // Cycles are refused for the whole repo by `npm run lint:repo` (dpdm), type imports included.
      'import/no-cycle': 'off',
      // Prettier wraps code at 140; what it cannot wrap (a long string or comment) is split by hand.
      'max-len': ['error', { code: 140, ignoreUrls: true, ignoreRegExpLiterals: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests of any tier may use the shared testing lib. Its harness builds on bus and db, so the
    // integration tests of those two make a test-only cycle, which is allowed here and only here.
    files: ['**/*.spec.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          ignoredCircularDependencies: [
            ['bus', 'testing'],
            ['db', 'testing'],
          ],
          depConstraints: [
            { sourceTag: '*', onlyDependOnLibsWithTags: ['type:core', 'type:adapter', 'type:testing', 'type:client', 'type:sdk'] },
          ],
        },
      ],
    },
  },
  {
    // End-to-end tests and benchmarks drive whole apps, in process or as processes.
    files: ['e2e/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: ['@spindle/gateway', '@spindle/runner'],
          depConstraints: [{ sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['*'] }],
        },
      ],
    },
  },
  {
    // The console runs these in a browser too: web platform APIs only, no Node built-ins.
    files: ['libs/engine/src/**/*.ts', 'libs/contracts/src/**/*.ts', 'libs/projections/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ioModules, message: 'libs/engine and libs/contracts do no I/O: take effects through a port.' },
            {
              group: ['node:*', 'crypto', 'buffer', 'util', 'path', 'os'],
              message: 'The console runs the core in a browser: no Node APIs.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'Configuration is parsed at the app edge.' },
        { name: 'fetch', message: 'No I/O in the core.' },
        { name: 'Buffer', message: 'The console runs the core in a browser: use Uint8Array and TextEncoder.' },
      ],
    },
  },
  {
    // NATS traffic goes through libs/bus (typed subjects, validation, fault handling); nothing else talks to NATS.
    files: ['apps/*/src/**/*.ts', 'libs/service-kit/src/**/*.ts', 'libs/projection-kit/src/**/*.ts', 'libs/service-db/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [natsOutsideTheBus] }],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MemberExpression[property.name=/^(nc|js|jsm)$/]',
          message: 'Reach NATS through a libs/bus function, not the raw connection.',
        },
      ],
    },
  },
  {
    // A service that owns no tables loads neither Kysely nor pg: the runner, and the kit every service shares.
    files: ['apps/runner/src/**/*.ts', 'libs/service-kit/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            natsOutsideTheBus,
            {
              group: ['kysely', 'pg', '@spindle/db', '@spindle/service-db', '@spindle/projection-kit'],
              message: 'The runner owns no tables.',
            },
          ],
        },
      ],
    },
  },
  {
    // The client runs in browsers too: web platform APIs only (fetch, streams, TextDecoder, AbortSignal).
    files: ['libs/client/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['node:*', ...ioModules], message: 'The client runs in browsers: no Node APIs.' }] },
      ],
      'no-restricted-globals': ['error', 'process', 'Buffer', 'require', '__dirname'],
    },
  },
  {
    files: ['libs/**/*.ts'],
    ignores: ['**/*.spec.ts', 'libs/testing/**'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Parse configuration once at the app edge.' }],
    },
  },
];
