module.exports = {
  displayName: 'plugin',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
