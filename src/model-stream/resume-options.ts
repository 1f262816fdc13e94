import type { ModelStreamEvents } from './model-stream-events.js';
import {
  checkFunction,
  checkInteger,
  checkName,
  checkOptions,
  type OptionKeys,
} from '../options/validate-options.js';
import { textOf } from '../text/safe-text.js';

/**
 * How a stream that breaks after content began is resumed (`resume: true` takes the defaults), in
 * `streamMessage` and `recourseMiddleware`: `maxResumes` 2 continuation requests per call, `name`
 * the model's name.
 *
 * @example
 * const resume: StreamResumeOptions = { maxResumes: 3, onResume: (e) => console.warn(`resumed after ${e.keptChars} chars: ${e.reason}`) }
 */
export interface StreamResumeOptions {
  /** Continuation requests per call (0 turns resumption off). Default 2. */
  maxResumes?: number;
  /** The `name` of the `resume` events. Default: the request's `model`. */
  name?: string;
  /** Sees every `resume` event (it is also published on `recourse:resume`). */
  onResume?: (event: ModelStreamEvents['resume']) => void;
}

/** @internal The checked resume options. */
export interface ResumeSettings {
  readonly maxResumes: number;
  readonly name: string | undefined;
  readonly onResume: ((event: ModelStreamEvents['resume']) => void) | undefined;
}

const RESUME_KEYS: OptionKeys<StreamResumeOptions> = {
  maxResumes: true,
  name: true,
  onResume: true,
};

/** @internal `undefined` / `false`: no resumption. `owner` names the options object in errors. */
export function checkResume(value: unknown, owner: string): ResumeSettings | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return { maxResumes: 2, name: undefined, onResume: undefined };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`resume must be true, false or an object, got ${textOf(value)}`);
  }
  const o = checkOptions(owner, value as StreamResumeOptions, RESUME_KEYS);
  return {
    maxResumes: o.maxResumes === undefined ? 2 : checkInteger('resume.maxResumes', o.maxResumes, 0),
    name: o.name === undefined ? undefined : checkName('resume.name', o.name),
    onResume: o.onResume === undefined ? undefined : checkFunction('resume.onResume', o.onResume),
  };
}
