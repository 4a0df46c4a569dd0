module.exports = {
  displayName: 'knowledge',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
