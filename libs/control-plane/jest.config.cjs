module.exports = {
  displayName: 'control-plane',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
