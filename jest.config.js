// TypeScript ESM under jest: ts-jest's ESM preset, run with --experimental-vm-modules
// (see package.json "test"). Two projects: fast unit tests with mocked embedder/store,
// and the slow ones that load the real model and build real indexes (test/integration).
const tsJest = {
  '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: { ignoreCodes: [151002] } }],
};
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: tsJest,
};

export default {
  // A fresh worker for every test file (heapUsed after any file is above 50 MB). Run in
  // one process (jest's default with one worker on 2 cores), the suites' ONNX Runtime
  // sessions and native indexes piled up until V8 failed an allocation (a CI run died
  // with "RegExpCompiler Allocation failed - process out of memory" at 100 MB of heap).
  workerIdleMemoryLimit: '50MB',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'], testEnvironment: 'node' },
    {
      ...common,
      displayName: 'slow',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      // The demo indexed once per run (test/helpers/cli.ts indexedDemo).
      globalSetup: '<rootDir>/test/helpers/indexed-demo-setup.mjs',
      globalTeardown: '<rootDir>/test/helpers/indexed-demo-teardown.mjs',
      // onnxruntime checks typed arrays against the host realm's constructors.
      testEnvironment: '<rootDir>/test/helpers/host-realm-environment.cjs',
    },
  ],
};
