/**
 * `agent-recourse/mcp`: resilient MCP tool calls over the official `@modelcontextprotocol/sdk`
 * Client (an optional peer, >= 1.20): a breaker per server, stall limits that progress resets,
 * cancellation sent to the server, retries that follow tool annotations, session renewal.
 *
 * @example
 * import { mcpClient, isToolCallError } from 'agent-recourse/mcp'
 * const files = mcpClient({ name: 'files', connect: () => connectFilesServer() })
 * const result = await files.callTool({ name: 'read_file', arguments: { path: 'a.txt' } })
 */
export {
  type McpCallOptions,
  type McpClient,
  type McpClientOptions,
  type McpToolCall,
  mcpClient,
} from './mcp-client.js';
export { isToolCallError, ToolCallError } from './tool-call-error.js';
export {
  isToolOutcomeUnknownError,
  ToolOutcomeUnknownError,
} from './tool-outcome-unknown-error.js';
