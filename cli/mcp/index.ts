// Entry of cli/mcp/ for static imports: only the tool list, so that `recall --help` can name the
// tools without loading the server (cli/mcp/mcp.ts is loaded with import() when `recall mcp` runs).
export { MCP_TOOL_NAMES, type McpToolName } from './tool-names.js';
