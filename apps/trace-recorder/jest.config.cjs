module.exports = {
  displayName: 'trace-recorder',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
