// One process, one variant of case 2: ns per item of a `for await` over `items` items.
import { report } from '../lib/spawn.js';
import { WATCH_VARIANTS } from './watch-variants.js';

const [name, itemsArg, warmupArg] = process.argv.slice(2);
const variant = WATCH_VARIANTS.find((v) => v.name === name);
if (variant === undefined) throw new Error(`unknown variant ${name}`);
const consume = await variant.setup();
const items = Number(itemsArg);
const warmup = Number(warmupArg);
for (let done = 0; done < warmup; done += 10_000) await consume(10_000);
const t0 = process.hrtime.bigint();
const sum = await consume(items);
const ns = Number(process.hrtime.bigint() - t0);
if (sum !== (items * (items - 1)) / 2) throw new Error(`wrong sum ${sum}`);
report({ variant: name, node: process.version, items, nsPerItem: ns / items });
process.exit(0);
