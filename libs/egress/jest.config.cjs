module.exports = {
  displayName: 'egress',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
