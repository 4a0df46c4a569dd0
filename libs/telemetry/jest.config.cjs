module.exports = {
  displayName: 'telemetry',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
