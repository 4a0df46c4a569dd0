module.exports = {
  displayName: 'client',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
