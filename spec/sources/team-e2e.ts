/**
 * Shared set-up of the team store end-to-end specs: the PostgreSQL server (the one .ci/run started,
 * RECALL_TEST_PG_URL, or a throwaway cluster; none → the specs are skipped with the reason), machines
 * standing for teammates (each a KB and a state dir), and small wrappers over the team commands.
 */
import { describe, expect } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { testPg, freshTeam } from '../helpers/pg.js';
import { teamInit, teamPull, teamPush } from '../../cli/team/team.js';
import { DEFAULT_COMMAND, runRecall, type RecallCommand } from '../../pipeline/run.js';
import { noteText } from '../helpers/kb.js';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = path.join(repo, 'bin', 'recall');

const pgOrSkip = await testPg();
if ('skip' in pgOrSkip) {
  // The one case where these tests do not run: no server could be started here.
  console.warn(`team store tests SKIPPED: no PostgreSQL server: ${pgOrSkip.skip}`);
}
export const suite = 'skip' in pgOrSkip ? describe.skip : describe;
export const server = 'skip' in pgOrSkip ? null : pgOrSkip;

export interface Machine {
  name: string;
  kb: string;
  state: string;
  env: Record<string, string>;
}

export function machine(base: string, name: string, roleUrl: string, extra: Record<string, string> = {}): Machine {
  const kb = path.join(base, name, 'kb');
  const state = path.join(base, name, 'state');
  fs.mkdirSync(path.join(kb, 'documents'), { recursive: true });
  fs.mkdirSync(state, { recursive: true });
  return {
    name,
    kb,
    state,
    env: {
      HOME: state,
      REFLECT_STATE_DIR: state,
      REFLECT_METRICS_PATH: path.join(state, 'metrics.jsonl'),
      RECALL_TEAM_URL: roleUrl,
      RECALL_TEAM_MACHINE: name,
      PATH: process.env['PATH'] ?? '',
      ...extra,
    },
  };
}

export const write = (m: Machine, rel: string, text: string): void => {
  const abs = path.join(m.kb, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, text);
};

export const io = (m: Machine, env: Record<string, string> = {}) => ({ env: { ...m.env, ...env }, cwd: m.kb, warn: () => undefined });
export const push = (m: Machine, opts: { all?: boolean } = {}) =>
  teamPush({ kb: m.kb, global: false, allBranches: false, all: opts.all === true }, io(m));
export const pull = (m: Machine, opts: Parameters<typeof teamPull>[0] = {}) => teamPull({ kb: m.kb, ...opts }, io(m));

export async function recall(m: Machine, query: string, cmd: Partial<RecallCommand> = {}, env: Record<string, string> = {}) {
  const r = await runRecall(
    { ...DEFAULT_COMMAND, format: 'json', cache: false, kb: m.kb, ...cmd, query },
    { ...io(m, env), warn: () => undefined },
  );
  return { ids: (r.outcome?.results ?? []).map((c) => c.note.displayId), outcome: r.outcome, stdout: r.stdout };
}

/** Every text file under a folder, concatenated (to search the state dir for secrets). */
export function allText(dir: string): string {
  let out = '';
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && fs.statSync(p).size < 5_000_000) out += fs.readFileSync(p).toString('latin1');
    }
  };
  walk(dir);
  return out;
}

export const shared = (id: string, title: string, body: string, extra: Record<string, unknown> = {}): string =>
  noteText(id, title, body, { share: 'team', ...extra });

export interface TeamWorld {
  team: Awaited<ReturnType<typeof freshTeam>>;
  secrets: string[];
  alice: Machine;
  bob: Machine;
  carol: Machine;
}

/** A fresh store with three teammates; the store owner creates the schema and lets them push and pull. */
export async function startTeam(base: string): Promise<TeamWorld> {
  const team = await freshTeam(server!, ['alice', 'bob', 'carol']);
  const secrets = Object.values(team.roles).map((r) => r.password);
  const alice = machine(base, 'alice-laptop', team.roles['alice']!.url);
  const bob = machine(base, 'bob-desktop', team.roles['bob']!.url);
  const carol = machine(base, 'carol-laptop', team.roles['carol']!.url);
  const init = await teamInit(
    { url: team.dbUrl, grant: Object.values(team.roles).map((r) => r.name), grantRead: [], shareAll: [] },
    { env: { ...alice.env, RECALL_TEAM_URL: '' }, cwd: alice.kb, warn: () => undefined },
  );
  expect(init.applied).toEqual([1, 2, 3, 4]);
  return { team, secrets, alice, bob, carol };
}

/** Remove the machines' folders and stop a throwaway server. */
export function stopTeam(base: string): void {
  fs.rmSync(base, { recursive: true, force: true });
  server?.cluster?.stop();
}
