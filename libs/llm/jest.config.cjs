module.exports = {
  displayName: 'llm',
  preset: '../../jest.preset.cjs',
  rootDir: __dirname,
};
