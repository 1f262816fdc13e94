import { defineConfig } from 'vitest/config';

// The multi-process cluster tests (test/cluster) start eight processes each; beside other test
// files on a 2-core machine they would only queue for the same cores, so they run after the rest
// of the suite, one file at a time.
const CLUSTER = ['test/cluster/**/*.test.ts'];

// The unit files mostly wait (on a chaos server, a child process, a store): a run takes about four
// times its CPU time. Three at once keep two cores busy; vitest's default on 2 cores is one.
const UNIT_WORKERS = 3;

export default defineConfig({
  test: {
    // A deadline for a hung test, not a speed limit: a test that spawns a compiler, an SDK's CLI or
    // eight processes takes several times as long on a loaded machine as on a quiet one.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default', 'json'],
    outputFile: { json: '.tmp/vitest-results.json' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          maxWorkers: UNIT_WORKERS,
          include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
          exclude: [...CLUSTER, '**/node_modules/**'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'cluster',
          include: CLUSTER,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
