/**
 * Forgetting one of two notes that declare the same id, through the built CLI: the other note stays
 * found, right after the forget and after the KB is indexed from scratch (a new state dir, as after
 * a schema rebuild), whichever of the two held the plain id. An id forgotten while a single note
 * held it still retires a note that declares it later, on a fresh index too.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempKb, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';
import { distinctKey } from '../../core/note/index.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.join(repo, 'bin', 'recall');
let kb: TempKb | null = null;
afterEach(() => {
  kb?.cleanup();
  kb = null;
});

const ID = 'lrn-shared-id';
const A = `---\nid: ${ID}\ntitle: "Pgbouncer pool sizing"\n---\nSize the pgbouncer pool per worker, not per host.\n`;
const B = `---\nid: ${ID}\ntitle: "Kafka producer idempotence"\n---\nEnable enable.idempotence to avoid duplicate messages on retry.\n`;
const C = `---\nid: ${ID}\ntitle: "Pgbouncer transaction mode"\n---\nPgbouncer transaction mode breaks session advisory locks.\n`;

function run(args: string[], state = kb!.state): { code: number; stdout: string; stderr: string } {
  const env = { PATH: process.env['PATH'] ?? '', HOME: state, REFLECT_STATE_DIR: state, RECALL_NO_SERVER: '1', ...driverEnv() };
  const r = spawnSync(bin, args, { encoding: 'utf8', env, cwd: repo });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Titles a recall returns, with an index built in `state`. */
function titles(query: string, state?: string): string[] {
  const r = run(['--kb', kb!.root, query, '--format', 'json'], state);
  expect([r.code, r.stderr]).toEqual([0, '']);
  return (JSON.parse(r.stdout) as { results: { title: string }[] }).results.map((x) => x.title);
}

/** Titles from a fresh index: a state dir never used before. */
const fresh = (query: string): string[] => titles(query, path.join(path.dirname(kb!.state), `fresh-${Math.random()}`));

function forget(key: string): void {
  const f = run(['forget', key, '--kb', kb!.root]);
  expect([f.code, f.stderr]).toEqual([0, '']);
}

describe('forgetting one of two notes that declare one id', () => {
  it('keeps the other note found after a fresh index, the second by path forgotten', () => {
    kb = tempKb();
    kb.write('documents/a.md', A);
    kb.write('documents/b.md', B);
    expect(titles('pgbouncer')).toEqual(['Pgbouncer pool sizing']);
    forget(distinctKey(ID, 'b'));
    expect(fs.readFileSync(path.join(kb.root, 'documents', '.forgotten', 'b.md'), 'utf8')).toContain(`id: ${distinctKey(ID, 'b')}\n`);
    expect(titles('pgbouncer')).toEqual(['Pgbouncer pool sizing']);
    expect(run(['index', '--kb', kb.root]).code).toBe(0);
    expect(titles('pgbouncer')).toEqual(['Pgbouncer pool sizing']);
    expect(fresh('pgbouncer')).toEqual(['Pgbouncer pool sizing']);
    expect(fresh('kafka idempotence')).toEqual([]);
  });

  it('keeps the other note found after a fresh index, the first by path forgotten', () => {
    kb = tempKb();
    kb.write('documents/b.md', B);
    expect(titles('kafka idempotence')).toEqual(['Kafka producer idempotence']);
    kb.write('documents/a.md', A); // a.md comes later: b.md keeps the id, a.md is indexed under its own key
    expect(titles('pgbouncer')).toEqual(['Pgbouncer pool sizing']);
    forget(distinctKey(ID, 'a'));
    expect(titles('kafka idempotence')).toEqual(['Kafka producer idempotence']);
    expect(fresh('kafka idempotence')).toEqual(['Kafka producer idempotence']);
    expect(fresh('pgbouncer')).toEqual([]);
  });

  it('an id forgotten with one holder retires a later note declaring it, on a fresh index as well', () => {
    kb = tempKb();
    kb.write('documents/a.md', A);
    expect(titles('pgbouncer')).toEqual(['Pgbouncer pool sizing']);
    forget(ID);
    expect(fs.readFileSync(path.join(kb.root, 'documents', '.forgotten', 'a.md'), 'utf8')).toBe(A);
    kb.write('documents/c.md', C);
    expect(titles('pgbouncer')).toEqual([]);
    expect(fresh('pgbouncer')).toEqual([]);
  });

  it('a forget whose move fails leaves the note as it was, a symlink and its bytes, with no copy', () => {
    kb = tempKb();
    const crlf = B.replace(/\n/g, '\r\n').trimEnd(); // CRLF, no final newline: any rewrite shows
    kb.write('documents/a.md', A);
    kb.write('documents/real/b.md', crlf);
    fs.symlinkSync('real/b.md', path.join(kb.root, 'documents', 'b.md'));
    expect(titles('pgbouncer')).toEqual(['Pgbouncer pool sizing']);
    // The forgotten folder's name taken by a plain file: the move cannot be made.
    kb.write('documents/.forgotten', 'not a folder\n');
    const f = run(['forget', distinctKey(ID, 'b'), '--kb', kb.root]);
    expect(f.code).not.toBe(0);
    const link = path.join(kb.root, 'documents', 'b.md');
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(link, 'utf8')).toBe(crlf);
    expect(fs.readdirSync(path.join(kb.root, 'documents')).sort()).toEqual(['.forgotten', 'a.md', 'b.md', 'real']);
  });
});
