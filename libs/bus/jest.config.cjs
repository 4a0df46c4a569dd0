module.exports = {
  displayName: 'bus',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
