module.exports = {
  displayName: 'service-db',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
