import type { Emitter } from '../events/emitter.js';
import { checkResult } from '../validate/check-result.js';
import type { WatchLimits } from '../watch/watcher.js';
import { governedCall } from './governed-call.js';
import type { ModelWire } from './model-wire.js';
import { readRequest } from './read-request.js';
import { resumedCall } from './resumed-call.js';
import type { ResumeSettings } from './resume-options.js';
import type { StreamSettings } from './stream-options.js';

/** @internal Resumption of a stream call: its settings, where its events go, their default name. */
export interface StreamResume {
  readonly settings: ResumeSettings;
  readonly events: Emitter;
  readonly name: string | undefined;
}

const noop = (): void => {};

/**
 * @internal A call of `wire` that resolves with one result (`streamMessage`, `streamChat`,
 * `streamResponse`): under the governor's envelope, each request read under `watch` to its real
 * end, resumed after a break when `resume` is given and the wire can, and the result checked by
 * the caller's validator. An answer that fails validation was paid for all the same: it is
 * counted first.
 */
export async function streamCall<C, Q, I, R, K extends { readonly chars: number }>(
  wire: ModelWire<C, Q, I, R, K>,
  client: C,
  request: Q,
  settings: StreamSettings<I, R>,
  resume?: StreamResume,
): Promise<R> {
  const onEvent = settings.onEvent ?? noop;
  const result = await governedCall(wire, client, request, settings, (onHeaders) => {
    const run = (body: Q, handle: (item: I) => void, limits: WatchLimits<I>): Promise<R> =>
      readRequest(wire, client, body, limits, {
        requestOptions: settings.requestOptions,
        onHeaders,
        handle,
      });
    const resumable = wire.resume;
    if (resume === undefined || resumable === undefined)
      return run(request, onEvent, settings.limits);
    return resumedCall({ ...wire, resume: resumable }, client, request, {
      run,
      limits: settings.limits,
      settings: resume.settings,
      onEvent,
      events: resume.events,
      name: resume.name,
    });
  });
  return settings.validator === undefined ? result : checkResult(settings.validator, result);
}
