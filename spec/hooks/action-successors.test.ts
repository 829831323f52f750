/**
 * The action hook gives a retired note's replacement, not the retired advice: a note the call reaches
 * that another reached note supersedes gives way to it (hooks/action-recall.ts).
 */
import { describe, it, expect } from '@jest/globals';
import { parseNote } from '../../core/note/index.js';
import { readToolCall } from '../../operators/action/index.js';
import { actionMatches } from '../../hooks/action-recall.js';
import type { NoteSet, RecallSession } from '../../pipeline/run.js';

const jwt = parseNote(
  `---
id: lrn-jwt
title: "Auth convention: stateless JWT with RS256"
key_insight: "Services authenticate via stateless RS256 JWTs minted by the identity service."
---
Body.
`,
  'documents/jwt.md',
  'documents',
);
const sessions = parseNote(
  `---
id: lrn-sessions
title: "Auth convention: server-side sessions replace JWT"
key_insight: "The team standard is server-side sessions; JWTs are deprecated for first-party auth."
---
Body.
`,
  'documents/sessions.md',
  'documents',
);

const sessionOf = (successors?: NoteSet['successors']): RecallSession =>
  ({
    noteSets: () => [{ root: '/kb', version: null, notes: () => [jwt, sessions], ...(successors ? { successors } : {}) }],
  }) as unknown as RecallSession;

const write = readToolCall({
  tool_name: 'Write',
  tool_input: { file_path: '/home/dev/relay/admin/auth/tokens.py', content: 'import jwt\n\njwt.encode(claims, key, algorithm="RS256")\n' },
})!;
const given = async (session: RecallSession, warn?: (l: string) => void) =>
  (await actionMatches(session, write, '/home/dev/relay', { info: () => 1, prompt: '', ...(warn ? { warn } : {}) })).map(
    (m) => m.note.displayId,
  );

describe('action hook and superseded notes', () => {
  it('gives the replacement of a reached note another reached note supersedes, not the retired one', async () => {
    expect(await given(sessionOf())).toContain('lrn-jwt');
    const supersedes = (paths: readonly string[]) =>
      new Map(paths.includes(jwt.path) && paths.includes(sessions.path) ? [[jwt.path, new Set([sessions.path])]] : []);
    expect(await given(sessionOf(supersedes))).toEqual(['lrn-sessions']);
  });

  it('gives the matches as they are, and says so, when the successions cannot be read', async () => {
    const lines: string[] = [];
    const broken = (): never => {
      throw new Error('database is locked');
    };
    expect(await given(sessionOf(broken), (l) => lines.push(l))).toContain('lrn-jwt');
    expect(lines.join('\n')).toMatch(/successions unavailable.*database is locked/);
  });

  it('passes a chain on to its newest note, whatever order the successions come in', async () => {
    const version = (n: number) =>
      parseNote(
        `---\nid: lrn-auth-v${n}\ntitle: "Auth convention v${n}: stateless JWT with RS256"\nkey_insight: "Services authenticate via RS256 JWTs."\n---\nBody.\n`,
        `documents/auth-v${n}.md`,
        'documents',
      );
    const [v1, v2, v3] = [version(1), version(2), version(3)];
    const chain: NoteSet['successors'] = () =>
      new Map([
        [v2.path, new Set([v3.path])],
        [v1.path, new Set([v2.path])],
      ]);
    const session = {
      noteSets: () => [{ root: '/kb', version: null, notes: () => [v1, v2, v3], successors: chain }],
    } as unknown as RecallSession;
    expect(await given(session)).toEqual(['lrn-auth-v3']);
  });
});

describe('action hook and a memory another says in words is gone', () => {
  const memory = (file: string, name: string, description: string, body: string) =>
    parseNote(`---\nname: ${name}\ndescription: ${description}\ntype: reference\n---\n${body}\n`, `documents/${file}.md`, 'documents');
  const workers = memory(
    'reference_queue_workers',
    'Queue workers on the web servers',
    'Prod queue workers are queue:work processes under Supervisor on ost-web-1 and ost-web-2',
    'Hung workers on ost-web-1 came back in March after `php artisan queue:restart` there.',
  );
  const horizon = memory(
    'reference_horizon',
    'horizon-and-workers',
    'Queues run under Horizon on ost-worker-1 only',
    'Horizon replaced the per-server queue workers on 2026-08-03. Restart with `php artisan horizon:terminate` on ost-worker-1.',
  );
  const restart = readToolCall({ tool_name: 'Bash', tool_input: { command: "ssh forge@ost-web-1 'php artisan queue:restart'" } })!;
  const givenFor = async (notes: readonly ReturnType<typeof parseNote>[]) =>
    (
      await actionMatches(
        { noteSets: () => [{ root: '/kb', version: null, notes: () => notes }] } as unknown as RecallSession,
        restart,
        '/home/dev/ostrava',
        { info: () => 1, prompt: '' },
      )
    ).map((m) => m.note.displayId);

  it('gives the newer memory for a call in the words of the one it replaced, even when the call reaches only that one', async () => {
    expect(await givenFor([workers])).toEqual([workers.displayId]);
    const given = await givenFor([workers, horizon]);
    expect(given).toHaveLength(1);
    expect(given[0]).toBe(horizon.displayId);
  });
});

describe('action hook and a note retired before the call (NoteSet.retired)', () => {
  // A successor in words of its own: the call reaches only the note it retired.
  const cookies = parseNote(
    `---\nid: lrn-cookies\ntitle: "Auth convention: server-side sessions in cookies"\nkey_insight: "First-party services keep a server-side session per login."\n---\nBody.\n`,
    'documents/cookies.md',
    'documents',
  );
  // The KB gives the cookies note only: the JWT note is retired by it, so the session lists it apart.
  const sessionWith = (retired: { note: ReturnType<typeof parseNote>; by: string }[]): RecallSession =>
    ({ noteSets: () => [{ root: '/kb', version: null, notes: () => [cookies], retired: () => retired }] }) as unknown as RecallSession;

  it('gives the successor of a retired note the call reaches, never the retired note', async () => {
    expect(await given(sessionWith([]))).toEqual([]);
    expect(await given(sessionWith([{ note: jwt, by: cookies.key }]))).toEqual(['lrn-cookies']);
  });

  it('leaves out a retired note whose successor the KB does not give', async () => {
    expect(await given(sessionWith([{ note: jwt, by: 'documents/gone.md' }]))).toEqual([]);
  });
});

describe('action hook and code a retired note recommended', () => {
  const memory = (file: string, name: string, description: string, body: string) =>
    parseNote(`---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n${body}\n`, `memory/${file}.md`, 'documents');
  const consoleToggles = memory(
    'project_flag_console',
    'Toggling flags',
    'Flags are flipped from a Rails console on the app server',
    'Open `bin/rails c` on the app server, then `Flipper.enable_actor(:flag, User.find(id))` or `Flipper.enable_percentage_of_actors(:flag, 10)`.',
  );
  const cloud = memory(
    'project_flag_cloud',
    'flag-cloud',
    'Flags live in the hosted flag service now; a console change is reverted at the next sync',
    'Replaces [[Toggling flags]]. Set actors and percentages in the hosted UI, which keeps an audit log.',
  );
  const call = readToolCall({
    tool_name: 'Bash',
    tool_input: { command: "bin/rails runner 'Flipper.enable_actor(:beta_pricing, User.find(77))'" },
  })!;
  const givenFor = async (retired: { note: ReturnType<typeof parseNote>; by: string }[]) =>
    (
      await actionMatches(
        { noteSets: () => [{ root: '/kb', version: null, notes: () => [cloud], retired: () => retired }] } as unknown as RecallSession,
        call,
        '/home/dev/shop',
        { info: () => 1, prompt: '' },
      )
    ).map((m) => m.note.displayId);

  it('gives the successor to a call that writes what the retired note recommended', async () => {
    expect(await givenFor([])).toEqual([]);
    expect(await givenFor([{ note: consoleToggles, by: cloud.key }])).toEqual([cloud.displayId]);
  });
});

describe('retired notes and how common a clue is', () => {
  const memory = (file: string, name: string, description: string, body: string) =>
    parseNote(`---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n${body}\n`, `memory/${file}.md`, 'documents');
  const pool = memory(
    'project_pool',
    'pgbouncer-pool',
    'Edits of pgbouncer.ini: default_pool_size and max_client_conn move together',
    'Raise `max_client_conn` with `default_pool_size` in `pgbouncer.ini`.',
  );
  const terraform = memory('project_tf', 'db-config-in-terraform', 'Database settings live in terraform now', 'See infra/db.');
  const old = (k: number) =>
    memory(`project_old_${k}`, `old-pool-${k}`, `Keep default_pool_size = 2x in pgbouncer.ini (${k})`, 'Edit `pgbouncer.ini` by hand.');
  const edit = readToolCall({
    tool_name: 'Edit',
    tool_input: {
      file_path: '/home/dev/shop/deploy/pgbouncer.ini',
      old_string: 'default_pool_size = 20',
      new_string: 'default_pool_size = 40',
    },
  })!;
  const scoreOf = async (retired: number) => {
    const session = {
      noteSets: () => [
        {
          root: '/kb',
          version: null,
          notes: () => [pool, terraform],
          retired: () => Array.from({ length: retired }, (_, k) => ({ note: old(k), by: terraform.key })),
        },
      ],
    } as unknown as RecallSession;
    const given = await actionMatches(session, edit, '/home/dev/shop', { info: () => 1, prompt: '' });
    return given.find((m) => m.note.displayId === pool.displayId)?.match.score;
  };

  it('counts the notes the KB gives only: old versions of a memory make no live clue commoner', async () => {
    const alone = await scoreOf(0);
    expect(alone).toBeGreaterThan(1.5);
    expect(await scoreOf(10)).toBe(alone);
  });
});
