// The one rule for handing in a store (docs/durable-state.md#handing-in-a-store): a store the thing
// cannot work without is its first argument; an optional one is the `store` option. Checked on the
// types of every function and class that an entry of package.json exports, so a new export that
// breaks it fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, null | string | { default: string }>;
};
const entries = Object.entries(pkg.exports).flatMap(([name, target]) =>
  typeof target === 'object' && target !== null
    ? [
        {
          name,
          file: join(ROOT, target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')),
        },
      ]
    : [],
);

/**
 * Exports whose required store DESIGN.md (the binding public contract) writes as an option:
 * `escalate({ store })` (§Recovery by class and escalation).
 */
const FIXED_BY_DESIGN = new Set(['agent-recourse:escalate']);

interface Finding {
  /** `entry:export`. */
  at: string;
  /** Where its store goes: the first argument, or the `store` option. */
  how: 'first argument' | 'store option' | 'required store option' | 'store not first';
}

function findings(): Finding[] {
  const program = ts.createProgram(
    entries.map((e) => e.file),
    {
      strict: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      noEmit: true,
      skipLibCheck: true,
    },
  );
  const checker = program.getTypeChecker();
  const isStore = (type: ts.Type): boolean => {
    const parts = type.isIntersection() ? type.types : [type];
    return parts.every((t) => /Store$/.test((t.aliasSymbol ?? t.getSymbol())?.getName() ?? ''));
  };
  const out: Finding[] = [];
  for (const entry of entries) {
    const source = program.getSourceFile(entry.file);
    if (source === undefined) throw new Error(`${entry.file}: not found`);
    const moduleSymbol = checker.getSymbolAtLocation(source);
    if (moduleSymbol === undefined) continue;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol =
        exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (!(symbol.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class))) continue;
      const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
      if (declaration === undefined) continue;
      const type = checker.getTypeOfSymbolAtLocation(symbol, declaration);
      const signatures = [...type.getCallSignatures(), ...type.getConstructSignatures()];
      const at = `${entry.name === '.' ? 'agent-recourse' : `agent-recourse/${entry.name.slice(2)}`}:${exported.getName()}`;
      let how: Finding['how'] | undefined;
      let optionalSomewhere = false;
      for (const signature of signatures) {
        signature.getParameters().forEach((parameter, i) => {
          const pType = checker.getNonNullableType(
            checker.getTypeOfSymbolAtLocation(parameter, declaration),
          );
          if (isStore(pType)) {
            how = i === 0 ? (how ?? 'first argument') : 'store not first';
            return;
          }
          for (const member of pType.isUnion() ? pType.types : [pType]) {
            const store = member.getProperty('store');
            if (store === undefined) continue;
            const storeType = checker.getNonNullableType(
              checker.getTypeOfSymbolAtLocation(store, declaration),
            );
            if (!isStore(storeType)) continue;
            how ??= 'store option';
            if (store.flags & ts.SymbolFlags.Optional) optionalSomewhere = true;
          }
        });
      }
      if (how === 'store option' && !optionalSomewhere) how = 'required store option';
      if (how !== undefined) out.push({ at, how });
    }
  }
  return out.sort((a, b) => a.at.localeCompare(b.at));
}

describe('one rule for handing in a store', () => {
  const found = findings();

  it('a store the thing cannot work without is its first argument; an optional one is the store option', () => {
    const broken = found.filter(
      (f) =>
        f.how === 'store not first' ||
        (f.how === 'required store option' && !FIXED_BY_DESIGN.has(f.at)),
    );
    expect(broken).toEqual([]);
  });

  it('finds the exports it is about', () => {
    const by = (how: Finding['how']) => found.filter((f) => f.how === how).map((f) => f.at);
    expect(by('first argument')).toEqual(
      expect.arrayContaining([
        'agent-recourse:Checkpointer',
        'agent-recourse:IdempotencyLedger',
        'agent-recourse:escalations',
      ]),
    );
    expect(by('store option')).toEqual(
      expect.arrayContaining([
        'agent-recourse:BreakerRegistry',
        'agent-recourse:Saga',
        'agent-recourse:circuitBreaker',
        'agent-recourse:rateLimiter',
        'agent-recourse:retryBudget',
      ]),
    );
    expect(by('required store option')).toEqual([...FIXED_BY_DESIGN]);
  });
});
