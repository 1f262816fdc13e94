// Default stall limits of the model adapters, from the gaps measured or published for real
// streams (docs/claude-agent-sdk.md and docs/anthropic.md give the figures and sources).

/**
 * @internal Idle limit while a model is writing text (the last item was a text delta): text
 * arrives token by token, a few to a few hundred ms apart, so a minute of silence mid-text is a
 * stall, not a slow model.
 */
export const WRITING_IDLE_MS = 60_000;

/**
 * @internal Idle limit everywhere else: before the first content, while a model thinks (with
 * thinking omitted or redacted nothing streams, for minutes), while the API builds one tool
 * argument (it sends each key/value whole), while the Agent SDK runs a tool (a heartbeat every
 * 30 s) or waits on the API (nothing at all). The Claude Code CLI itself never treats less than
 * 300 s without data as an idle stream.
 */
export const QUIET_IDLE_MS = 300_000;
