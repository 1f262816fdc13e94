import { randomUUID } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** This machine and PID namespace: a PID means the same process only within it. */
function machine(): string {
  let namespace = '';
  try {
    // Containers sharing a volume have separate PID namespaces; PIDs from another one say nothing.
    namespace = readlinkSync('/proc/self/ns/pid').replace(/\D/g, '');
  } catch {
    // Not Linux: the host name alone.
  }
  return `${hostname()}#${namespace}`.replace(/[\s|]/g, '_');
}

const MACHINE = machine();

/**
 * @internal A lease owner id that says which process holds the lease: `machine|pid|random`.
 *
 * @example
 * const owner = processOwner()
 */
export function processOwner(): string {
  return `${MACHINE}|${process.pid}|${randomUUID()}`;
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
  if (where !== MACHINE || nonce === undefined || rest.length > 0) return false;
  const n = Number(pid);
  if (!Number.isInteger(n) || n <= 0 || n === process.pid) return false;
  try {
    process.kill(n, 0);
    return false;
  } catch (error) {
    return (error as { code?: unknown }).code === 'ESRCH';
  }
}
