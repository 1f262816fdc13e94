import { defineConfig } from 'vitest/config';

// The multi-process cluster tests (test/cluster) measure how fast a change in one process reaches
// eight others, in milliseconds. On a 2-core machine another test file running beside them takes
// the cores those processes need, and the delay measured is the scheduler's, not recourse's. They
// run after the rest of the suite, one file at a time.
const CLUSTER = ['test/cluster/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default', 'json'],
    outputFile: { json: '.tmp/vitest-results.json' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
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
