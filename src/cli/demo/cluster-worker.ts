// One worker process of `recourse demo --workers N` (started by cluster-demo.ts with an IPC
// channel; not a public entry). It asks deep-research through a breaker shared with the other
// workers through the store, falls back to quick-search, and reports every call, state change and
// probe to the parent.
import { anthropicClientOptions } from '../../anthropic/client-options.js';
import { circuitBreaker } from '../../circuit-breaker/circuit-breaker.js';
import { isCircuitOpenError } from '../../errors/circuit-open-error.js';
import { fallback } from '../../fallback/fallback.js';
import { openStore } from '../store-spec.js';
import type { ClusterGo, ClusterWorkerConfig, ClusterWorkerMessage } from './cluster-messages.js';

const STORE_TIMEOUT_MS = 1_500;

const send = (message: ClusterWorkerMessage): void => {
  process.send?.(message);
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function main(config: ClusterWorkerConfig): Promise<void> {
  const { default: Anthropic } = await import('@anthropic-ai/sdk');
  const client = new Anthropic(
    anthropicClientOptions({ apiKey: 'sk-ant-demo-offline', baseURL: config.chaosUrl }),
  );
  // A demo runs on laptops under load: a store answer slower than 250 ms is not an outage here.
  const { store, close } = await openStore(config.store, {
    connections: 4,
    storeTimeoutMs: STORE_TIMEOUT_MS,
  });
  const breaker = circuitBreaker({
    name: config.breakerName,
    store,
    storeTimeoutMs: STORE_TIMEOUT_MS,
    failureThreshold: config.failureThreshold,
    cooldownMs: config.cooldownMs,
    probeTimeoutMs: 5_000,
  });
  breaker.on('state', (e) => send({ t: 'state', at: Date.now(), from: e.from, to: e.to }));
  breaker.on('store_unavailable', () => send({ t: 'store', at: Date.now(), available: false }));
  breaker.on('store_recovered', () => send({ t: 'store', at: Date.now(), available: true }));
  const ask = async (model: string, signal: AbortSignal | undefined): Promise<string> => {
    const message = await client.messages.create(
      {
        model,
        max_tokens: 128,
        messages: [{ role: 'user', content: `Worker ${config.index}: research one topic.` }],
      },
      signal === undefined ? {} : { signal },
    );
    return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  };
  const ladder = fallback<string>([
    {
      name: 'deep-research',
      policy: breaker,
      run: async (ctx) => {
        // Inside the breaker's call, a half-open copy means this call is the fleet's one probe.
        const probe = breaker.state === 'half-open';
        const at = Date.now();
        send({ t: 'deep', at }); // the breaker let this call through
        try {
          const text = await ask(config.deepModel, ctx.signal);
          if (probe) send({ t: 'probe', at, endedAt: Date.now(), ok: true });
          return text;
        } catch (error) {
          if (probe) send({ t: 'probe', at, endedAt: Date.now(), ok: false });
          throw error;
        }
      },
    },
    { name: 'quick-search', run: (ctx) => ask(config.quickModel, ctx.signal) },
  ]);
  await breaker.execute(async () => undefined); // the first admission waits for the stored record
  const go = new Promise<number>((resolve) =>
    process.once('message', (m: ClusterGo) => resolve(m.startAt)),
  );
  send({ t: 'ready', pid: process.pid });
  const startAt = await go;
  await sleep(startAt - Date.now());
  const end = startAt + config.durationMs;
  // Workers start a little apart, as real ones would.
  await sleep((config.index - 1) * (config.intervalMs / 4));
  while (Date.now() < end) {
    try {
      const served = await ladder.execute();
      const first = served.failures[0]?.error;
      const outcome = !served.degraded ? 'deep' : isCircuitOpenError(first) ? 'skipped' : 'failed';
      send({ t: 'call', at: Date.now(), outcome });
    } catch {
      send({ t: 'call', at: Date.now(), outcome: 'lost' });
    }
    await sleep(config.intervalMs);
  }
  await close();
  send({ t: 'done' });
}

main(JSON.parse(process.argv[2] ?? '{}') as ClusterWorkerConfig).then(
  () => process.disconnect?.(),
  (error: unknown) => {
    send({ t: 'fatal', message: error instanceof Error ? error.message : String(error) });
    process.exitCode = 1;
    process.disconnect?.();
  },
);
