import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** @internal The classes of the official MCP SDK the chaos server is built with. */
export interface ServerSdk {
  McpServer: typeof McpServer;
  StdioServerTransport: typeof StdioServerTransport;
  StreamableHTTPServerTransport: typeof StreamableHTTPServerTransport;
}

let loaded: Promise<ServerSdk> | undefined;

/**
 * @internal Loads `@modelcontextprotocol/sdk` (an optional peer) when a chaos MCP server starts,
 * so `agent-recourse/chaos` and the `recourse` bin work without it for everything else; without
 * it, starting one says what to install.
 */
export function loadServerSdk(): Promise<ServerSdk> {
  loaded ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]).then(
    ([mcp, stdio, http]) => ({
      McpServer: mcp.McpServer,
      StdioServerTransport: stdio.StdioServerTransport,
      StreamableHTTPServerTransport: http.StreamableHTTPServerTransport,
    }),
    (error: unknown) => {
      loaded = undefined;
      throw new Error(
        'the chaos MCP server needs @modelcontextprotocol/sdk >= 1.20: npm install -D @modelcontextprotocol/sdk',
        { cause: error },
      );
    },
  );
  return loaded;
}
