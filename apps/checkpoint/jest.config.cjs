module.exports = {
  displayName: 'checkpoint',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
