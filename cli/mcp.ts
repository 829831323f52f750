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
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { CHARS_PER_TOKEN } from '../sinks/economics.js';
import { DEFAULT_COMMAND, runRecall, type RecallCommand } from '../pipeline/run.js';
import { stageHydrate, stageIndex, stageTimeline, type HydrateStep, type IndexStep, type TimelineStep } from './stages.js';
import { runExplain } from './trace.js';
import { errorMessage } from '../core/errors.js';
import { asReferenceBlock } from '../sinks/safe-text.js';

/** Output budget of each tool, in tokens (see the table above). */
export const MCP_BUDGETS = { search: 1500, index: 1000, timeline: 1000, hydrate: 4000, explain: 1500 } as const;
/** Ids one hydrate call takes: hydrate is for the few notes that survived index and timeline. */
export const HYDRATE_MAX_IDS = 5;

export interface McpOptions {
  kb: string | null;
  global: boolean;
  allBranches: boolean;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  warn: (line: string) => void;
}

const chars = (tokens: number): number => tokens * CHARS_PER_TOKEN;
const CUT_NOTE = (tokens: number): string => `\n… (cut to this tool's ${tokens}-token budget)`;

/** Cut text to a token budget at a line boundary, saying so. */
export function fitText(text: string, tokens: number): string {
  const max = chars(tokens);
  if (text.length <= max) return text;
  const note = CUT_NOTE(tokens);
  const head = text.slice(0, Math.max(0, max - note.length));
  const nl = head.lastIndexOf('\n');
  return `${(nl > head.length / 2 ? head.slice(0, nl) : head).trimEnd()}${note}`;
}

/**
 * JSON of a staged step within a budget. Hydrated notes are shortened before any is dropped: bodies
 * share what the budget leaves, then entity sidecars and frontmatter give way; only then are
 * trailing rows dropped. The result says `"truncated": true` when anything was cut.
 */
export function fitStep<T extends { results: unknown[] }>(step: T, tokens: number): string {
  const max = chars(tokens);
  const text = (s: unknown): string => JSON.stringify(s, null, 1);
  if (text(step).length <= max) return text(step);
  type Row = Record<string, unknown>;
  let rows = step.results.map((r) => ({ ...(r as Row) }));
  const fits = (): boolean => text({ ...step, results: rows, truncated: true }).length <= max;
  const hydrated = rows.filter((r) => typeof r['body'] === 'string');
  const lossier: ((r: Row) => void)[] = [
    (r) => void (r['entities'] !== undefined && r['entities'] !== null && (r['entities'] = '(omitted: over the tool budget)')),
    (r) => void (r['frontmatter'] !== undefined && (r['frontmatter'] = '(omitted: over the tool budget)')),
  ];
  if (hydrated.length) {
    const shareBodies = (): void => {
      const overhead = text({
        ...step,
        results: rows.map((r) => (typeof r['body'] === 'string' ? { ...r, body: '' } : r)),
        truncated: true,
      }).length;
      const each = Math.max(200, Math.floor((max - overhead) / hydrated.length) - 60);
      for (const r of rows) {
        const b = r['body'];
        if (typeof b === 'string' && b.length > each) r['body'] = `${b.slice(0, each)} … (body cut to the ${tokens}-token budget)`;
      }
    };
    const originals = rows.map((r) => r['body']);
    shareBodies();
    for (const step of lossier) {
      if (fits()) break;
      rows.forEach((r, i) => (r['body'] = originals[i]));
      for (const r of rows) step(r);
      shareBodies();
    }
  }
  while (rows.length > 1 && !fits()) rows = rows.slice(0, -1);
  return fitText(text({ ...step, results: rows, truncated: true }), tokens);
}

const result = (text: string): { content: { type: 'text'; text: string }[] } => ({ content: [{ type: 'text', text }] });
const failure = (err: unknown): { content: { type: 'text'; text: string }[]; isError: true } => ({
  content: [{ type: 'text', text: `recall: ${errorMessage(err)}` }],
  isError: true,
});

/** The server with its five tools (not yet connected to a transport). */
export function createMcpServer(o: McpOptions, version = '0.1.0'): McpServer {
  const server = new McpServer({ name: 'recall', version });
  const scope = { kb: o.kb, global: o.global, allBranches: o.allBranches };
  const io = { env: o.env, cwd: o.cwd, warn: o.warn };
  const confidence = z.enum(['HIGH', 'MEDIUM', 'LOW', 'ANY']).optional();

  server.registerTool(
    'search',
    {
      title: 'Recall prior learnings',
      description:
        'Search the knowledge base of prior learnings (past fixes, decisions, pitfalls) for the task at hand. Ranked, with abstention: an empty answer means nothing relevant enough. Short specific queries work best: tool names, error snippets, project.',
      inputSchema: {
        query: z.string().min(1).describe('what you are about to do, or an error snippet'),
        limit: z.number().int().min(1).max(20).optional().describe('results (default 10)'),
        confidence: confidence.describe('minimum confidence tier (default ANY)'),
        mode: z
          .enum(['naive', 'local', 'global'])
          .optional()
          .describe('naive (default), local: graph neighbourhood, global: broad patterns'),
        tags: z.array(z.string()).optional().describe('tags that boost matching notes'),
      },
    },
    async (a) => {
      try {
        const cmd: RecallCommand = {
          ...DEFAULT_COMMAND,
          ...scope,
          query: a.query,
          limit: a.limit ?? 10,
          confidence: a.confidence ?? 'ANY',
          mode: a.mode ?? 'naive',
          tags: a.tags ?? [],
          maxChars: chars(MCP_BUDGETS.search),
          followup: false,
        };
        const res = await runRecall(cmd, io);
        const found = res.stdout.trim();
        if (!found) return result(`No learning in the KB is relevant enough to "${a.query}" (recall abstained).`);
        // Learnings reach the agent as one delimited block of reference material, as from a hook;
        // the budget is applied inside the block so that it stays closed.
        const wrapper = asReferenceBlock('x').length - 1;
        return result(asReferenceBlock(fitText(found, MCP_BUDGETS.search - Math.ceil(wrapper / CHARS_PER_TOKEN))));
      } catch (err) {
        return failure(err);
      }
    },
  );

  server.registerTool(
    'index',
    {
      title: 'Staged recall, step 1: index',
      description:
        'ID-only rows (id, title, score, project, date) for a query, best first: triage many hits cheaply, then use timeline or hydrate on the few that matter.',
      inputSchema: { query: z.string().min(1), limit: z.number().int().min(1).max(50).optional().describe('rows (default 20)') },
    },
    async (a) => {
      try {
        const step: IndexStep = await stageIndex(a.query, { ...scope, ...(a.limit ? { limit: a.limit } : {}) }, io);
        return result(fitStep(step, MCP_BUDGETS.index));
      } catch (err) {
        return failure(err);
      }
    },
  );

  server.registerTool(
    'timeline',
    {
      title: 'Staged recall, step 2: timeline',
      description:
        'Chronological neighbours (ID-only rows) around an anchor note, to see how a problem evolved. Give an anchor id from index, or a query to pick one.',
      inputSchema: {
        anchor: z.string().optional().describe('note id from index'),
        query: z.string().optional().describe('used to find the anchor when none is given'),
        depth_before: z.number().int().min(0).max(20).optional(),
        depth_after: z.number().int().min(0).max(20).optional(),
      },
    },
    async (a) => {
      try {
        const step: TimelineStep = await stageTimeline(
          {
            ...scope,
            ...(a.anchor ? { anchor: a.anchor } : {}),
            ...(a.query ? { query: a.query } : {}),
            ...(a.depth_before !== undefined ? { depthBefore: a.depth_before } : {}),
            ...(a.depth_after !== undefined ? { depthAfter: a.depth_after } : {}),
          },
          io,
        );
        return result(fitStep(step, MCP_BUDGETS.timeline));
      } catch (err) {
        return failure(err);
      }
    },
  );

  server.registerTool(
    'hydrate',
    {
      title: 'Staged recall, step 3: hydrate',
      description: `Full notes (frontmatter, body, entities) for ids chosen through index and timeline; at most ${HYDRATE_MAX_IDS} at once. Never hydrate without filtering first.`,
      inputSchema: { ids: z.array(z.string().min(1)).min(1).max(HYDRATE_MAX_IDS) },
    },
    async (a) => {
      try {
        const step: HydrateStep = await stageHydrate(a.ids, scope, io);
        return result(fitStep(step, MCP_BUDGETS.hydrate));
      } catch (err) {
        return failure(err);
      }
    },
  );

  server.registerTool(
    'explain',
    {
      title: 'Explain a recall result',
      description: 'Say where one note dropped out of (or ranked in) the result of a query, and why: arms, fusion, filters, boosts, gates.',
      inputSchema: { query: z.string().min(1), id: z.string().min(1).describe('note id (or file name without .md)') },
    },
    async (a) => {
      try {
        const text = `${(await runExplain({ ...DEFAULT_COMMAND, ...scope, query: a.query, format: 'json', gapLog: false, followup: false }, a.id, io)).message}\n`;
        return result(fitText(text, MCP_BUDGETS.explain));
      } catch (err) {
        return failure(err);
      }
    },
  );

  return server;
}

/** Serve over stdio until the client closes the connection. */
export async function serveMcp(o: McpOptions): Promise<void> {
  const server = createMcpServer(o);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
}
