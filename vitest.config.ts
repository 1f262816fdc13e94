import { defineConfig } from 'vitest/config';

// The multi-process cluster tests (test/cluster) start four to eight processes each; beside the
// unit files on a 2-core machine they would only queue for the same cores, so they run after the
// rest of the suite, two files at a time: their processes mostly wait on a shared virtual time that
// moves only when every process is quiet (shared-time.ts), so a second file fills the idle core
// without changing any outcome (one at a time: about 170 s; two: about 95 s).
const CLUSTER = ['test/cluster/**/*.test.ts'];

// The unit files mostly wait (on a chaos server, a child process, a store): a run takes about four
// times its CPU time. Three at once keep two cores busy; vitest's default on 2 cores is one.
const UNIT_WORKERS = 3;

// The unit files share their worker's modules (isolate: false): importing recourse's sources anew
// for each of 200 files was half the suite's CPU time (test/core alone: 35 s of CPU isolated, 19 s
// shared). These files change or count what a process holds once (fake or spied global timers,
// process handlers and environment, the process-wide deadline queue, diagnostics-channel
// subscribers), so each still gets a fresh module graph of its own. A new test that does any of
// that belongs here: test/suite/suite-isolation.test.ts fails until it is listed.
export const ISOLATED = [
  'test/ai-sdk/middleware-generate.test.ts',
  'test/claude-agent-sdk/outcome.test.ts',
  'test/core/hostile-throws.test.ts',
  'test/core/long-durations.test.ts',
  'test/core/pipeline-fused.test.ts',
  'test/core/predicate-options.test.ts',
  'test/core/shared-signal.test.ts',
  'test/core/timeout-lazy-start.test.ts',
  'test/core/timeout.test.ts',
  'test/core/watch.test.ts',
  'test/durable/sqlite-failures.test.ts',
  'test/guardrails/health-monitor.test.ts',
  'test/langchain/model-string.test.ts',
  'test/postgres/postgres-store.test.ts',
  'test/recovery/by-class.test.ts',
  'test/telemetry/prometheus.test.ts',
];

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
          isolate: false,
          include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
          exclude: [...CLUSTER, ...ISOLATED, '**/node_modules/**'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          // The same workers as the unit files, in the same group: vitest runs one group's files
          // together only when their projects have one maxWorkers (an isolated project of one
          // worker would be put in a sequential group after every other).
          maxWorkers: UNIT_WORKERS,
          include: ISOLATED,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'cluster',
          include: CLUSTER,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
