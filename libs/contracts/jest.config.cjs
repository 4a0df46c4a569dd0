module.exports = {
  displayName: 'contracts',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
