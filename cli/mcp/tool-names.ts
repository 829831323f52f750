/**
 * The tools `recall mcp` serves, by name: `recall --help` describes the server from this list, and
 * registerTools (tools.ts) refuses to register a tool missing from it or to leave one out, so the
 * help cannot drift from the server. Import-free: the help reads it without loading the MCP SDK.
 */
export const MCP_TOOL_NAMES = ['search', 'index', 'timeline', 'hydrate', 'explain', 'save', 'supersede', 'forget'] as const;

export type McpToolName = (typeof MCP_TOOL_NAMES)[number];
