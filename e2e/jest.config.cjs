module.exports = {
  displayName: 'e2e',
  preset: '../jest.preset.cjs',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.e2e.spec.ts'],
  testTimeout: 120_000,
};
