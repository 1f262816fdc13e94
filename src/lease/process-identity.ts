interface Runtime {
  pid?: number;
  kill?: (pid: number, signal: number) => unknown;
  getBuiltinModule?: (id: string) => unknown;
}

// The host's process, where the runtime has one (Node, Bun, Deno; workerd's has no real pid).
const runtime = (): Runtime | undefined => (globalThis as { process?: Runtime }).process;

/**
 * This machine and PID namespace: a PID means the same process only within it. Node's fs and os
 * are reached through `getBuiltinModule` (ARCHITECTURE.md §runtimes), and only when a lease is
 * taken, never at load; where they are missing the id names no machine, and no holder ever counts
 * as dead.
 */
function machine(): string | undefined {
  const r = runtime();
  let host: string | undefined;
  let namespace = '';
  try {
    const os = r?.getBuiltinModule?.('node:os') as { hostname?: () => string } | undefined;
    host = os?.hostname?.();
    const fs = r?.getBuiltinModule?.('node:fs') as
      | { readlinkSync?: (path: string) => string }
      | undefined;
    // Containers sharing a volume have separate PID namespaces; PIDs from another one say nothing.
    namespace = String(fs?.readlinkSync?.('/proc/self/ns/pid') ?? '').replace(/\D/g, '');
  } catch {
    // Not Linux: the host name alone.
  }
  if (host === undefined || typeof r?.pid !== 'number') return undefined;
  return `${host}#${namespace}`.replace(/[\s|]/g, '_');
}

let machineId: string | null | undefined;
function thisMachine(): string | null {
  if (machineId === undefined) machineId = machine() ?? null;
  return machineId;
}

/**
 * @internal A lease owner id that says which process holds the lease: `machine|pid|random`.
 *
 * @example
 * const owner = processOwner()
 */
export function processOwner(): string {
  const where = thisMachine() ?? 'unknown';
  return `${where}|${runtime()?.pid ?? 0}|${globalThis.crypto.randomUUID()}`;
}

/**
 * @internal True only when `owner` was made by {@link processOwner} on this machine and its process
 * no longer exists. Anything uncertain (another machine, another namespace, a process we may not
 * signal, a zombie not yet reaped, a recycled PID) counts as alive: the caller then waits for the
 * lease to lapse instead.
 *
 * @example
 * if (holderIsDead(lease.holder)) await store.sagaAcquire(id, me, now, leaseMs, lease.holder)
 */
export function holderIsDead(owner: string): boolean {
  const [where, pid, nonce, ...rest] = owner.split('|');
  const here = thisMachine();
  if (here === null || where !== here || nonce === undefined || rest.length > 0) return false;
  const r = runtime();
  const n = Number(pid);
  if (!Number.isInteger(n) || n <= 0 || n === r?.pid || typeof r?.kill !== 'function') return false;
  try {
    r.kill(n, 0);
    return false;
  } catch (error) {
    return (error as { code?: unknown }).code === 'ESRCH';
  }
}
