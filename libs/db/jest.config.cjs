module.exports = {
  displayName: 'db',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
