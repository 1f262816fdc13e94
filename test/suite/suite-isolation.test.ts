// The unit files share their worker's modules (vitest.config.ts, isolate: false); a file that changes
// or counts what a process holds once must run isolated. This keeps the list honest: a new file that
// fakes or spies on global timers, touches process handlers or the environment, or counts the
// process-wide deadline queue or diagnostics-channel subscribers, fails here until it is listed.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISOLATED } from '../../vitest.config.js';

const ROOT = join(import.meta.dirname, '..', '..');

const PROCESS_WIDE = [
  /spyOn\(globalThis/,
  /spyOn\(process/,
  /useFakeTimers/,
  /stubGlobal/,
  /stubEnv/,
  /process\.env\.[A-Za-z_]+ *=[^=]/,
  /delete process\.env/,
  /process\.(on|once|off)\(/,
  /deadlineQueue\(/,
  /hasSubscribers/,
  /listenerCount/,
  /getActiveResourcesInfo/,
  /vi\.(do)?[mM]ock\(/,
  /globalThis\.[a-zA-Z_]+ *=[^=]/,
  /process\.chdir/,
  /Error\.stackTraceLimit/,
];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return d.name === 'node_modules' ? [] : testFiles(path);
    return d.name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

describe('which test files run isolated', () => {
  it('every unit file that changes or counts process-wide state is listed in ISOLATED', () => {
    const self = relative(ROOT, import.meta.filename);
    const files = [...testFiles(join(ROOT, 'test')), ...testFiles(join(ROOT, 'src'))].filter(
      (f) => f !== self && !f.startsWith('test/cluster/'),
    );
    expect(files.length).toBeGreaterThan(100);
    const needing = files
      .filter((f) => PROCESS_WIDE.some((p) => p.test(readFileSync(join(ROOT, f), 'utf8'))))
      .sort();
    expect(needing.filter((f) => !ISOLATED.includes(f))).toEqual([]);
  });

  it('every listed file exists', () => {
    expect(ISOLATED.filter((f) => !existsSync(join(ROOT, f)))).toEqual([]);
  });
});
