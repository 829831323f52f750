/**
 * The tools `recall mcp` serves, by name: `recall --help` describes the server from this list, and
 * registerTools (tools.ts) refuses to register a tool missing from it or to leave one out, so the
 * help cannot drift from the server. Import-free: the help reads it without loading the MCP SDK.
 */
export const MCP_TOOL_NAMES = ['search', 'index', 'timeline', 'hydrate', 'explain', 'save', 'supersede', 'forget'] as const;

export type McpToolName = (typeof MCP_TOOL_NAMES)[number];

/**
 * `server` seen through a check: registering a tool MCP_TOOL_NAMES does not list throws, and
 * allRegistered() throws unless every listed tool was registered.
 */
export function listedOnly<S extends object>(server: S): { checked: S; allRegistered: () => void } {
  const registered: string[] = [];
  const listed: readonly string[] = MCP_TOOL_NAMES;
  const checked = new Proxy(server, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (prop !== 'registerTool' || typeof value !== 'function') return value;
      return (name: string, ...rest: unknown[]) => {
        if (!listed.includes(name)) throw new Error(`MCP tool ${name} is missing from MCP_TOOL_NAMES (cli/mcp/tool-names.ts)`);
        registered.push(name);
        return (value as (...a: unknown[]) => unknown).call(target, name, ...rest);
      };
    },
  });
  const allRegistered = (): void => {
    const missing = listed.filter((n) => !registered.includes(n));
    if (missing.length) throw new Error(`MCP_TOOL_NAMES lists ${missing.join(', ')}, which no code registers`);
  };
  return { checked, allRegistered };
}
