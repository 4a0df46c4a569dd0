module.exports = {
  displayName: 'runner',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
