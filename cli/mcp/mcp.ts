/**
 * `recall mcp`: recall as an MCP server over stdio (the official @modelcontextprotocol/sdk), so an
 * agent can ask mid-task instead of only through hooks. Tools:
 *
 * | tool     | what                                                              | output budget |
 * |----------|-------------------------------------------------------------------|---------------|
 * | search   | the full recall pipeline (ranking, abstention), markdown          | 1,500 tokens  |
 * | index    | staged step 1: ID-only rows, best first                           | 1,000 tokens  |
 * | timeline | staged step 2: chronological neighbours of an anchor              | 1,000 tokens  |
 * | hydrate  | staged step 3: full notes for chosen ids (at most 5)              | 4,000 tokens  |
 * | explain  | where one note dropped out of a query's result, and why           | 1,500 tokens  |
 *
 * Budgets are in tokens of about 4 characters; an answer over budget is cut (rows dropped, bodies
 * shortened) and says so. The KB is chosen as for the CLI (`--kb DIR` given to `recall mcp`, else
 * the scope rules from the folder the harness starts the server in). Nothing here writes to stdout
 * but the protocol; diagnostics go to stderr.
 *
 * Framing is recall's own (LineTransport, cli/mcp/line-transport.ts), not the SDK's
 * StdioServerTransport, because that one drops the connection for good on a line over 10 MiB (every
 * later request goes unanswered), answers nothing to a line that is not JSON, and never notices
 * stdin closing (the process then ended with Node's "unsettled top-level await" status 13).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerTools } from './tools.js';
import { LineTransport } from './line-transport.js';

export { HYDRATE_MAX_IDS, MCP_BUDGETS, fitStep, fitText } from './budget.js';
export { INVALID_REQUEST, LineTransport, MAX_LINE_BYTES, PARSE_ERROR, peekId } from './line-transport.js';

export interface McpOptions {
  kb: string | null;
  global: boolean;
  allBranches: boolean;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  warn: (line: string) => void;
}

/** The server with its five tools (not yet connected to a transport). */
export function createMcpServer(o: McpOptions, version = '0.1.0'): McpServer {
  const server = new McpServer({ name: 'recall', version });
  registerTools(server, {
    scope: { kb: o.kb, global: o.global, allBranches: o.allBranches },
    io: { env: o.env, cwd: o.cwd, warn: o.warn },
  });
  return server;
}

/**
 * Serve over stdio until the client closes stdin (requests already read are answered first), or
 * stdout goes away. Resolves then, so the command ends with status 0.
 */
export async function serveMcp(o: McpOptions): Promise<void> {
  const server = createMcpServer(o);
  const transport = new LineTransport(process.stdin, process.stdout, { warn: o.warn });
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
}
