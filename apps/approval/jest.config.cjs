module.exports = {
  displayName: 'approval',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
