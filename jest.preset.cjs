// Shared Jest preset: ts-jest transpiles (no type check; `typecheck` targets do that),
// workspace libs resolve to their sources, ESM-only deps are transformed to CommonJS.
const path = require('node:path');
module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
  transform: {
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json', diagnostics: false }],
  },
  transformIgnorePatterns: ['node_modules/(?!(@marcbachmann/cel-js|ulid|jose)/)'],
  moduleNameMapper: {
    '^@spindle/(contracts|engine|projections|bus|db|llm|telemetry|testing|service-kit|service-db|projection-kit|identity|client|egress|control-plane|knowledge|sdk|plugin)$':
      path.join(__dirname, 'libs/$1/src/index.ts'),
    '^@spindle/(gateway|runner)$': path.join(__dirname, 'apps/$1/src/index.ts'),
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 60_000,
  globalSetup: path.join(__dirname, 'libs/testing/src/jest-global-setup.ts'),
  globalTeardown: path.join(__dirname, 'libs/testing/src/jest-global-teardown.ts'),
  reporters: ['default', path.join(__dirname, 'scripts/jest-summary-reporter.cjs')],
};
