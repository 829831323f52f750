/** `recall mcp`: serve recall as an MCP server over stdio. */
import type { Argv, CommandModule } from 'yargs';
import { SCOPE_OPTIONS, oneKb, serviceIo, type CliIo } from '../shared.js';
import { MCP_TOOL_NAMES } from '../mcp/index.js';

export function mcpCommand(io: CliIo): CommandModule {
  return {
    command: 'mcp',
    describe: `Serve recall as an MCP server over stdio (${MCP_TOOL_NAMES.length} tools: ${MCP_TOOL_NAMES.join(', ')})`,
    builder: (y: Argv) => y.options(SCOPE_OPTIONS),
    handler: async (a) => {
      const { serveMcp } = await import('../mcp/mcp.js');
      await serveMcp({ ...oneKb(a, 'mcp'), env: io.env, cwd: io.cwd, warn: serviceIo(io).warn });
    },
  };
}
