module.exports = {
  displayName: 'service-kit',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
