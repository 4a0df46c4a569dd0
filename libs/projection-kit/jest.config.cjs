module.exports = {
  displayName: 'projection-kit',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
