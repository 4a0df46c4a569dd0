module.exports = {
  displayName: 'engine',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
