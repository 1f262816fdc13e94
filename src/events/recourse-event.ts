/**
 * An event as sinks receive it from `subscribe`: its payload plus `type`, `policy` (the kind:
 * `retry`, `circuit-breaker`, …), `name` (the policy's own name, else the name of the call it ran
 * in: a named `pipeline` or `instrument`) and `at` (epoch ms).
 *
 * @example
 * const sink = (e: RecourseEvent) => console.log(e.at, e.type, e.name ?? 'unnamed')
 */
export type RecourseEvent = {
  type: string;
  policy: string;
  name?: string;
  at: number;
  [key: string]: unknown;
};
