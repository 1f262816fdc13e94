import { classify } from '../../classify/classify.js';
import { isAllPathsFailedError } from '../../errors/all-paths-failed-error.js';
import { seededRandom } from '../../random/seeded-random.js';
import { researchOrchestrator } from './research-orchestrator.js';
import { type SimulatedFault, simulatedSubagent } from './simulated-subagents.js';

/** Where the demo writes. */
export interface DemoIO {
  stdout: { write(s: string): unknown };
}

const TOPICS = [
  'battery recycling',
  'solid-state electrolytes',
  'grid-scale storage',
  'perovskite solar cells',
  'green hydrogen',
  'carbon capture',
  'small modular reactors',
  'offshore wind',
  'heat pumps',
  'sodium-ion batteries',
  'geothermal drilling',
  'fusion magnets',
  'EV charging networks',
  'direct air capture',
  'tidal energy',
  'smart grids',
  'biofuels',
  'thermal storage',
  'lithium mining',
  'vehicle-to-grid',
];

/**
 * The in-process research demo: ~20 topics through deep-research → quick-search, with seeded
 * faults (529s, stalls, empty results), printing a trace and a summary.
 */
export async function runSimulatedDemo(io: DemoIO, seed = 7): Promise<number> {
  const random = seededRandom(seed);
  const started = performance.now();
  const out = (s: string) => io.stdout.write(`${s}\n`);
  const t = () => `${((performance.now() - started) / 1000).toFixed(2).padStart(6)}s`;
  const counts = { overloaded: 0, stall: 0, empty: 0, ok: 0 } as Record<SimulatedFault, number>;
  const onFault = (name: string, topic: string, fault: SimulatedFault, attempt: number) => {
    counts[fault]++;
    const what =
      fault === 'ok' ? 'answers normally' : fault === 'overloaded' ? 'will throw a 529 Overloaded' : fault === 'stall' ? 'will go silent mid-stream' : 'will return an EMPTY result';
    out(`${t()}  ${topic.padEnd(24)} ${name.padEnd(13)} attempt ${attempt}: subagent ${what}`);
  };
  const idleMs = 250;
  const deep = simulatedSubagent('deep-research', { overloaded: 0.3, stall: 0.2, empty: 0.15, messageGapMs: 40 }, random, idleMs, onFault);
  const quick = simulatedSubagent('quick-search', { overloaded: 0.05, stall: 0.03, empty: 0.05, messageGapMs: 20 }, random, idleMs, onFault);
  const orchestrator = researchOrchestrator(
    { deep, quick },
    { failureThreshold: 3, cooldownMs: 400, backoffBaseMs: 50, backoffMaxMs: 400 },
    undefined,
    random,
  );
  let retries = 0;
  let stalls = 0;
  for (const { name, policy, breaker } of orchestrator.paths) {
    policy.on('retry', (e) => {
      retries++;
      const { error, delayMs } = e as { error: unknown; delayMs: number };
      const c = classify(error);
      if (c.reason === 'stall') stalls++;
      out(`${t()}  ${''.padEnd(24)} ${name.padEnd(13)} retry in ${Math.round(delayMs)} ms after ${c.reason}${c.status ? ` (${c.status})` : ''}`);
    });
    breaker.on('state', (e) => out(`${t()}  ${''.padEnd(24)} ${name.padEnd(13)} breaker ${e.from} → ${e.to}`));
  }
  const servedBy: Record<string, number> = {};
  let failed = 0;
  let degraded = 0;
  for (const topic of TOPICS) {
    const ladder = orchestrator.ladder(topic);
    ladder.on('fallback', (e) => {
      const c = classify(e.error);
      if (c.reason === 'stall') stalls++;
      out(`${t()}  ${topic.padEnd(24)} fallback ${e.from} → ${e.to} (${c.reason})`);
    });
    try {
      const served = await ladder.execute();
      servedBy[served.servedBy] = (servedBy[served.servedBy] ?? 0) + 1;
      if (served.degraded) degraded++;
      out(`${t()}  ${topic.padEnd(24)} ✔ served by ${served.servedBy}${served.degraded ? ' (DEGRADED)' : ''}: ${served.value.text}`);
    } catch (error) {
      failed++;
      const paths = isAllPathsFailedError(error) ? error.failures.map((f) => `${f.path}: ${classify(f.error).reason}`).join(', ') : String(error);
      out(`${t()}  ${topic.padEnd(24)} ✘ all paths failed (${paths})`);
    }
  }
  const wall = (performance.now() - started) / 1000;
  out('');
  out('summary');
  out(`  topics           ${TOPICS.length}`);
  out(`  served_by        ${Object.entries(servedBy).map(([k, v]) => `${k}=${v}`).join('  ')}`);
  out(`  degraded         ${degraded}`);
  out(`  failed           ${failed}`);
  out(`  retries          ${retries}`);
  out(`  stalls caught    ${stalls}`);
  out(`  injected faults  529=${counts.overloaded} stall=${counts.stall} empty=${counts.empty} ok=${counts.ok}`);
  out(`  breakers         ${Object.entries(orchestrator.breakers.states()).map(([k, v]) => `${k}=${v}`).join('  ')}`);
  out(`  wall time        ${wall.toFixed(1)} s`);
  return 0;
}
