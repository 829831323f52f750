/**
 * Leaks through the real processes: secret-carrying prompts (how many of the shapes end up in clear
 * somewhere in the state dir) and a note hiding an instruction in invisible characters (how many
 * invisible characters reach the hook context and `recall show`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { cli, contextOf, freshCase, hook, note, row, run } from './harness.js';
import { SECRET_SHAPES } from './secret-shapes.js';
import { HIDDEN_INSTRUCTION, INVISIBLES, asTags, countInvisible } from './invisible-text.js';

function stateText(dir: string): { file: string; text: string }[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .map((file) => ({ file: path.relative(dir, file), text: fs.readFileSync(file, 'utf8') }));
}

/** What `recall mcp` answered to a session of raw lines, by id (null for the id-less errors). */
function mcpAnswers(stdout: string): { id: unknown; code?: number }[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      try {
        const v = JSON.parse(l) as { id?: unknown; error?: { code?: number } };
        return { id: v.id, ...(v.error ? { code: v.error.code } : {}) };
      } catch {
        return { id: 'unparsable' };
      }
    });
}

export const LEAK_CASES: Record<string, () => Promise<void>> = {
  async 'mcp-framing'() {
    const c = freshCase();
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } },
    };
    const huge = {
      method: 'tools/call',
      params: { name: 'search', arguments: { query: 'x'.repeat(11 * 1024 * 1024) } },
      jsonrpc: '2.0',
      id: 7,
    };
    const lines = [
      JSON.stringify(init),
      'not json at all',
      JSON.stringify(huge),
      JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list' }),
    ];
    const r = await run(cli('mcp', '--kb', c.kb), { env: c.env, stdin: `${lines.join('\n')}\n` });
    const a = mcpAnswers(r.stdout);
    const has = (id: unknown, code?: number): string => (a.some((x) => x.id === id && x.code === code) ? 'yes' : 'no');
    process.stdout.write(
      `| recall mcp: init, non-JSON line, 11 MiB request, tools/list, stdin closed | ${Math.round(r.ms)} ms | ${r.code ?? '-'} | - | ` +
        `${a.length} of 4 answered; -32700 for the non-JSON line: ${has(null, -32700)}; error for the 11 MiB line: ${has(7, -32600)}; later request served: ${has(8)} |\n`,
    );
    const closed = await run(cli('mcp', '--kb', c.kb), { env: c.env, stdin: `${JSON.stringify(init)}\n` });
    process.stdout.write(
      `| recall mcp: initialize, then stdin closed | ${Math.round(closed.ms)} ms | ${closed.code ?? '-'} | - | exit status ${closed.code} |\n`,
    );
  },
  async secrets() {
    const c = freshCase();
    let last: Awaited<ReturnType<typeof run>> | null = null;
    let total = 0;
    for (const [i, s] of SECRET_SHAPES.entries()) {
      last = await run(hook('user-prompt-submit'), { env: c.env, stdin: JSON.stringify({ session_id: `sec${i}`, prompt: s.prompt }) });
      total += last.ms;
    }
    const files = stateText(c.state);
    const leaked = SECRET_SHAPES.filter((s) => files.some((f) => f.text.includes(s.secret)));
    const where = [
      ...new Set(
        leaked.flatMap((s) => files.filter((f) => f.text.includes(s.secret)).map((f) => f.file.replace(/[0-9a-f]{16}\.json$/, '*.json'))),
      ),
    ];
    row(
      `${SECRET_SHAPES.length} secret-carrying prompts (UPS hook each)`,
      { ...last!, ms: total },
      `${leaked.length} of ${SECRET_SHAPES.length} shapes stored in clear${where.length ? ` (${where.join(', ')})` : ''}`,
    );
  },
  async invisible() {
    const c = freshCase();
    const hidden = asTags(HIDDEN_INSTRUCTION);
    fs.writeFileSync(
      path.join(c.kb, 'documents', 'smuggle.md'),
      note('lrn-smuggle', `postgres pool${hidden} tuning`, `raise the pool size${INVISIBLES.join('')} per worker${hidden}`),
    );
    const r = await run(hook('user-prompt-submit'), {
      env: c.env,
      stdin: JSON.stringify({ session_id: 's', prompt: 'postgres pool tuning per worker' }),
    });
    const show = await run(cli('show', '--kb', c.kb, 'lrn-smuggle'), { env: c.env });
    const inCtx = countInvisible(contextOf(r.stdout));
    row(
      `note hiding a ${HIDDEN_INSTRUCTION.length}-char instruction in tag characters`,
      r,
      `invisible chars passing: hook context ${inCtx}, recall show ${countInvisible(show.stdout)} (of ${countInvisible(fs.readFileSync(path.join(c.kb, 'documents', 'smuggle.md'), 'utf8'))} in the note)`,
    );
  },
};
