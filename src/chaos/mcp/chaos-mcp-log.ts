import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { ChaosMcpRecord, ChaosMcpSettings, ChaosMcpStep } from './chaos-mcp-options.js';

/**
 * Reads the records a chaos MCP server wrote to its `log` file (one JSON line each; a line cut
 * short by a process that died mid-write is skipped). Tests count what the server saw from it,
 * across every process that shared the file.
 *
 * @example
 * const calls = readChaosMcpLog('mcp.jsonl').filter((r) => r.type === 'call' && r.tool === 'read').length
 */
export function readChaosMcpLog(path: string): ChaosMcpRecord[] {
  if (!existsSync(path)) return [];
  const records: ChaosMcpRecord[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      records.push(JSON.parse(line) as ChaosMcpRecord);
    } catch {
      // A partial last line of a killed process.
    }
  }
  return records;
}

/**
 * @internal The server's memory of what it saw: per-tool call counts (continued from the log file
 * when there is one, so a restarted stdio server goes on with its fault plan), the records, and
 * the log writes. Lines are written synchronously: a step `exit` follows its own record at once.
 */
export class ChaosMcpLog {
  readonly records: ChaosMcpRecord[] = [];
  readonly #counts = new Map<string, number>();
  readonly #settings: ChaosMcpSettings;

  constructor(settings: ChaosMcpSettings) {
    this.#settings = settings;
    if (settings.log !== undefined)
      for (const r of readChaosMcpLog(settings.log))
        if (r.type === 'call') this.#counts.set(r.tool, (this.#counts.get(r.tool) ?? 0) + 1);
  }

  /**
   * Counts a call of `tool` and says what it does: its step of the fault plan, else (past the
   * plan, or a planned `ok`) the tool's own behaviour `normal`.
   */
  call(tool: string, normal: ChaosMcpStep): ChaosMcpStep {
    const n = (this.#counts.get(tool) ?? 0) + 1;
    this.#counts.set(tool, n);
    const planned = this.#settings.faults.get(tool)?.[n - 1] ?? 'ok';
    const step = planned === 'ok' ? normal : planned;
    this.add({ type: 'call', tool, n, step, at: Date.now(), pid: process.pid });
    return step;
  }

  add(record: ChaosMcpRecord): void {
    this.records.push(record);
    if (this.#settings.log !== undefined)
      appendFileSync(this.#settings.log, `${JSON.stringify(record)}\n`);
    this.#settings.onRecord?.(record);
  }

  /** Calls of `tool` seen by this server (this process's, plus those already in its log). */
  calls(tool: string): number {
    return this.#counts.get(tool) ?? 0;
  }

  /** `notifications/cancelled` received for calls of `tool`. */
  cancelled(tool: string): number {
    return this.records.filter((r) => r.type === 'cancelled' && r.tool === tool).length;
  }
}
