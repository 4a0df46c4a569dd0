module.exports = {
  displayName: 'cli',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
