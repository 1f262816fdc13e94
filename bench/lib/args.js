// Command-line options of bench/run.js.
export const USAGE = `usage: npm run bench -- [--quick] [--node PATH]... [--only CASES] [--merge] [--rounds N] [--out FILE]

  --quick        fewer rounds and iterations; the whole run finishes in under 60 s
  --node PATH    also run the per-call cases (1 overhead, 2 watch, 4 memory, 16 mcp) under this Node binary,
                 side by side with the Node running run.js (repeatable)
  --only CASES   comma-separated case ids or numbers: 1 overhead, 2 watch, 3 stall, 4 memory,
                 5 amplification, 6 jitter, 7 chaos, 8 report, 9 resume, 10 rate-limit, 11 hedge,
                 12 adaptive-stall, 13 cluster, 15 bundle-size, 16 mcp; and only when named, 14
                 instructions (valgrind's count of instructions per call for cases 1 and 2, about 9
                 minutes per runtime) and 17 fleet (1 to 1,000 workers as store handles on private
                 Redis, Redis Cluster and PostgreSQL servers, about 7 minutes; FLEET_SIZES,
                 FLEET_BACKENDS pick; with --merge the backends not picked are kept)
  --merge        keep the other cases of the results file (with --only: refresh some cases of a run)
  --rounds N     fresh processes per variant for the per-call cases (default 7; --quick 3)
  --out FILE     where to write the results (default bench/results.json)`;

export function parseArgs(argv) {
  const o = {
    quick: false,
    nodes: [],
    only: undefined,
    merge: false,
    rounds: undefined,
    out: undefined,
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--quick') o.quick = true;
    else if (a === '--node') o.nodes.push(value());
    else if (a === '--merge') o.merge = true;
    else if (a === '--only')
      o.only = value()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else if (a === '--rounds') {
      o.rounds = Number(value());
      if (!Number.isInteger(o.rounds) || o.rounds < 1)
        throw new Error('--rounds must be an integer >= 1');
    } else if (a === '--out') o.out = value();
    else if (a === '--help' || a === '-h') o.help = true;
    else throw new Error(`unknown option ${a}\n${USAGE}`);
  }
  return o;
}

/**
 * The cases a run measures: those named by --only (by id or number), or else every case that is
 * not `optional` (a case that needs a tool the machine may lack runs only when named).
 */
export function selectCases(cases, only) {
  if (only === undefined) return cases.filter((c) => !c.optional);
  return only.map((key) => {
    const c = cases.find((x, i) => x.id === key || String(i + 1) === key);
    if (c === undefined) throw new Error(`unknown case ${key}`);
    return c;
  });
}
