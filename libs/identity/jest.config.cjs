module.exports = {
  displayName: 'identity',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
