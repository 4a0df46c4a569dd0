module.exports = {
  displayName: 'dispatcher',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
