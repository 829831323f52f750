/** Jest runs the TypeScript sources directly through @swc/jest, in ESM mode. */
export default {
  testEnvironment: '<rootDir>/spec/onnx-env.cjs',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'es6' } }],
  },
  testMatch: ['<rootDir>/spec/**/*.test.ts'],
  testTimeout: 30000,
  // Stops the recall servers the hook and CLI tests started in their temp state dirs.
  globalTeardown: '<rootDir>/spec/helpers/stop-servers.mjs',
};
