module.exports = {
  displayName: 'projections',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
