/**
 * The tools of `recall mcp`: search, the staged index, timeline, hydrate, and explain; and the
 * writes an agent makes as it learns: save, supersede, forget (the same library functions as
 * `recall add`, `recall supersede` and `recall forget`).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CHARS_PER_TOKEN } from '../../sinks/economics.js';
import { DEFAULT_COMMAND, runRecall, type RecallCommand, type RunIo } from '../../pipeline/run.js';
import { stageHydrate, stageIndex, stageTimeline, type StagesScope } from '../stages/index.js';
import { runExplain } from '../trace/index.js';
import { UsageError, errorMessage } from '../../core/errors.js';
import { asReferenceBlock, oneLine } from '../../sinks/safe-text.js';
import { HYDRATE_MAX_IDS, MCP_BUDGETS, chars, fitStep, fitText } from './budget.js';
import { PersonsNoteError, addNote, forget, supersede, type WriteGuard } from '../../pipeline/notes/index.js';
import { LEARNING_LIMITS, checkId, checkLearning, provenanceOf } from '../../pipeline/learnings/index.js';
import { randomUUID } from 'node:crypto';
import { listedOnly } from './tool-names.js';
import { APPLIES_WHEN_SCHEMA, SAVE_DESCRIPTION } from './save-schema.js';
import { sourcesRead, sourcesTokens, stepWithSources, withSources } from './sources.js';

export interface ToolContext {
  scope: StagesScope;
  io: RunIo;
}

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: true };

const result = (text: string): ToolResult => ({ content: [{ type: 'text', text }] });

/** A tool's answer, or its error as a tool error the agent can read (never a protocol failure). */
async function guarded(fn: () => Promise<string>): Promise<ToolResult> {
  try {
    return result(await fn());
  } catch (err) {
    return { content: [{ type: 'text', text: `recall: ${errorMessage(err)}` }], isError: true };
  }
}

const SEARCH_DESCRIPTION =
  'Search the knowledge base of prior learnings (past fixes, decisions, pitfalls) for the task at hand. Ranked, with abstention: learnings that clear the relevance floor first, then "weak matches" under it, each with its relevance; check those before concluding the KB has nothing. Short specific queries work best: tool names, error snippets, project.';

async function search(
  a: { query: string; limit?: number; confidence?: RecallCommand['confidence']; mode?: RecallCommand['mode']; tags?: string[] },
  ctx: ToolContext,
): Promise<string> {
  const cmd: RecallCommand = {
    ...DEFAULT_COMMAND,
    ...ctx.scope,
    query: a.query,
    limit: a.limit ?? 10,
    confidence: a.confidence ?? 'ANY',
    mode: a.mode ?? 'naive',
    tags: a.tags ?? [],
    maxChars: chars(MCP_BUDGETS.search),
    followup: false,
    // An agent that asked is shown what the ranking found under the floor too, marked as weak
    // matches with their relevance (a hook, which nobody asked, injects nothing under it).
    showWeak: true,
  };
  const line = sourcesRead(ctx.scope, ctx.io);
  const found = (await runRecall(cmd, ctx.io)).stdout.trim();
  if (!found) return withSources(`No learning in the KB matches "${a.query}", not even weakly (recall abstained).`, line);
  // Learnings reach the agent as one delimited block of reference material, as from a hook;
  // the budget is applied inside the block so that it stays closed; the sources line follows it.
  const wrapper = asReferenceBlock('x').length - 1;
  const budget = MCP_BUDGETS.search - Math.ceil(wrapper / CHARS_PER_TOKEN) - sourcesTokens(line);
  return withSources(asReferenceBlock(fitText(found, budget)), line);
}

function registerSearch(server: McpServer, ctx: ToolContext): void {
  const inputSchema = {
    query: z.string().min(1).describe('what you are about to do, or an error snippet'),
    limit: z.number().int().min(1).max(20).optional().describe('results (default 10)'),
    confidence: z.enum(['HIGH', 'MEDIUM', 'LOW', 'ANY']).optional().describe('minimum confidence tier (default ANY)'),
    mode: z.enum(['naive', 'local', 'global']).optional().describe('naive (default), local: graph neighbourhood, global: broad patterns'),
    tags: z.array(z.string()).optional().describe('tags that boost matching notes'),
  };
  server.registerTool('search', { title: 'Recall prior learnings', description: SEARCH_DESCRIPTION, inputSchema }, (a) =>
    guarded(() => search(a, ctx)),
  );
}

function registerStages(server: McpServer, { scope, io }: ToolContext): void {
  server.registerTool(
    'index',
    {
      title: 'Staged recall, step 1: index',
      description:
        'ID-only rows (id, title, score, project, date) for a query, best first: triage many hits cheaply, then use timeline or hydrate on the few that matter.',
      inputSchema: { query: z.string().min(1), limit: z.number().int().min(1).max(50).optional().describe('rows (default 20)') },
    },
    (a) =>
      guarded(async () => {
        const step = await stageIndex(a.query, { ...scope, ...(a.limit ? { limit: a.limit } : {}) }, io);
        return fitStep(stepWithSources(step, sourcesRead(scope, io)), MCP_BUDGETS.index);
      }),
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
    (a) =>
      guarded(async () => {
        const step = await stageTimeline(
          {
            ...scope,
            ...(a.anchor ? { anchor: a.anchor } : {}),
            ...(a.query ? { query: a.query } : {}),
            ...(a.depth_before !== undefined ? { depthBefore: a.depth_before } : {}),
            ...(a.depth_after !== undefined ? { depthAfter: a.depth_after } : {}),
          },
          io,
        );
        return fitStep(stepWithSources(step, sourcesRead(scope, io)), MCP_BUDGETS.timeline);
      }),
  );
  server.registerTool(
    'hydrate',
    {
      title: 'Staged recall, step 3: hydrate',
      description: `Full notes (frontmatter, body, entities) for ids chosen through index and timeline; at most ${HYDRATE_MAX_IDS} at once. Never hydrate without filtering first.`,
      inputSchema: { ids: z.array(z.string().min(1)).min(1).max(HYDRATE_MAX_IDS) },
    },
    (a) => guarded(async () => fitStep(stepWithSources(await stageHydrate(a.ids, scope, io), sourcesRead(scope, io)), MCP_BUDGETS.hydrate)),
  );
}

function registerExplain(server: McpServer, { scope, io }: ToolContext): void {
  server.registerTool(
    'explain',
    {
      title: 'Explain a recall result',
      description: 'Say where one note dropped out of (or ranked in) the result of a query, and why: arms, fusion, filters, boosts, gates.',
      inputSchema: { query: z.string().min(1), id: z.string().min(1).describe('note id (or file name without .md)') },
    },
    (a) =>
      guarded(async () => {
        const cmd = { ...DEFAULT_COMMAND, ...scope, query: a.query, format: 'json' as const, gapLog: false, followup: false };
        const line = sourcesRead(scope, io);
        return withSources(fitText(`${(await runExplain(cmd, a.id, io)).message}\n`, MCP_BUDGETS.explain - sourcesTokens(line)), line);
      }),
  );
}

/** What the agent is told after a save: its note waits for a person, and how it is shown until then. */
const UNREVIEWED_NOTICE = (id: string): string =>
  `The next recall finds it, labelled as written by the agent and not reviewed, at most medium confidence, until a person accepts it (\`recall accept ${id}\`).`;

/** A word as a POSIX shell reads it back unchanged: bare when safe, else in single quotes. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9._:@/=+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** How long a person has to answer the client's consent form (the SDK's default is 60 s, short for a person away). */
const CONSENT_TIMEOUT_MS = 10 * 60_000;

/**
 * Run a write that an agent's tool may make only to notes agents wrote (`guard` 'unreviewed'). When
 * it would change a person's note, the person is asked through MCP elicitation if the client
 * supports it (a form with one yes/no field), and the write runs again unguarded on a yes; a client
 * without elicitation, a no, a cancel or no answer refuses with the exact command for the person.
 */
async function withConsent<T>(
  server: McpServer,
  write: (guard: WriteGuard) => T,
  consent: (n: PersonsNoteError['note']) => { ask: string; command: string },
): Promise<T> {
  try {
    return write('unreviewed');
  } catch (err) {
    if (!(err instanceof PersonsNoteError)) throw err;
    // The title is note text: shown on one line, cut short, in the person's client.
    const { ask, command } = consent({ ...err.note, title: oneLine(err.note.title).slice(0, 120) });
    const refusal = `not changed: ${err.note.id} was written or accepted by a person, and only they may change it. Ask them to run, in a terminal: ${command}`;
    if (!server.server.getClientCapabilities()?.elicitation) throw new UsageError(refusal);
    let answer: Awaited<ReturnType<typeof server.server.elicitInput>>;
    try {
      answer = await server.server.elicitInput(
        {
          message: ask,
          requestedSchema: {
            type: 'object',
            properties: {
              allow: { type: 'boolean', title: 'Allow', description: `Allow the agent to make this change to ${err.note.id}` },
            },
            required: ['allow'],
          },
        },
        { timeout: CONSENT_TIMEOUT_MS },
      );
    } catch (e) {
      throw new UsageError(`${refusal} (the person was not asked: ${errorMessage(e)})`);
    }
    if (answer.action !== 'accept' || answer.content?.['allow'] !== true) throw new UsageError(`${refusal} (the person declined)`);
    return write('any');
  }
}

function registerWrites(server: McpServer, { scope, io }: ToolContext): void {
  const connection = randomUUID().slice(0, 8);
  const L = LEARNING_LIMITS;
  server.registerTool(
    'save',
    {
      title: 'Save a learning',
      description: SAVE_DESCRIPTION,
      inputSchema: {
        title: z.string().describe(`one line naming the learning (at most ${L.title} characters)`),
        insight: z.string().describe(`the one sentence recall shows: what is true and non-obvious (at most ${L.insight})`),
        how_to_apply: z.string().optional().describe(`one line: what to do next time (at most ${L.apply})`),
        tags: z.array(z.string()).optional().describe(`lower-case words (at most ${L.tags}): tool, library, area`),
        confidence: z.enum(['high', 'medium', 'low']).optional().describe('high: verified; medium (default); low: a hunch'),
        type: z.string().optional().describe('pattern (default), bug-fix, decision, correction, anti-pattern'),
        body: z.string().optional().describe(`markdown detail: problem, what failed, what worked (at most ${L.body})`),
        applies_when: APPLIES_WHEN_SCHEMA,
      },
    },
    (a) =>
      guarded(async () => {
        const client = server.server.getClientVersion()?.name ?? '';
        const note = { ...checkLearning(a), source: provenanceOf(io.env, 'recall mcp', { client, fallbackSession: `mcp-${connection}` }) };
        const r = addNote(note, scope, io);
        return `Saved ${r.id} to ${r.path}${r.created ? ` (new KB ${r.kb})` : ''}. ${UNREVIEWED_NOTICE(r.id)}`;
      }),
  );
}

/** supersede and forget: on notes agents wrote; a person's note only with the person's consent. */
function registerRetire(server: McpServer, { scope, io }: ToolContext): void {
  server.registerTool(
    'supersede',
    {
      title: 'Supersede a learning',
      description:
        "Mark a learning as replaced by a newer one (save the new one first): recall stops returning the old one, and each note names the other. Only for learnings an agent saved and no person has reviewed; changing a person's learning asks the person.",
      inputSchema: {
        old_id: z.string().describe('id of the learning that is no longer right'),
        new_id: z.string().describe('id of the learning that replaces it'),
      },
    },
    (a) =>
      guarded(async () => {
        const oldId = checkId('old_id', a.old_id);
        const newId = checkId('new_id', a.new_id);
        const r = await withConsent(
          server,
          (guard) => supersede(oldId, newId, scope, io, guard),
          (n) => ({
            ask: `The agent asks to mark ${oldId} as superseded by ${newId}. That changes ${n.id} ("${n.title}"), a learning a person wrote or accepted. Allow it?`,
            command: `recall supersede ${shellWord(oldId)} ${shellWord(newId)} --kb ${shellWord(n.kb)}`,
          }),
        );
        return `${r.old.id} is superseded by ${r.new.id}; recall no longer returns ${r.old.id}.`;
      }),
  );
  server.registerTool(
    'forget',
    {
      title: 'Forget a learning',
      description:
        "Retire a learning that is wrong or no longer useful: it moves to the KB's .forgotten/ folder, where recall never looks. Only for learnings an agent saved and no person has reviewed; forgetting a person's learning asks the person.",
      inputSchema: { id: z.string().describe('id of the learning to forget') },
    },
    (a) =>
      guarded(async () => {
        const id = checkId('id', a.id);
        const r = await withConsent(
          server,
          (guard) => forget(id, scope, io, guard),
          (n) => ({
            ask: `The agent asks to forget ${n.id} ("${n.title}"), a learning a person wrote or accepted. Allow it?`,
            command: `recall forget ${shellWord(n.id)} --kb ${shellWord(n.kb)}`,
          }),
        );
        return `Forgot ${r.id}: moved to ${r.to}.`;
      }),
  );
}

export function registerTools(server: McpServer, ctx: ToolContext): void {
  // Only tools MCP_TOOL_NAMES lists, and all of them: the help describes the server from that list.
  const { checked, allRegistered } = listedOnly(server);
  registerSearch(checked, ctx);
  registerStages(checked, ctx);
  registerExplain(checked, ctx);
  registerWrites(checked, ctx);
  registerRetire(checked, ctx);
  allRegistered();
}
