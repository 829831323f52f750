/**
 * The team trust rules and the pulled shard's files, without a server: which revision a machine
 * shows, what a pulled note file says, provenance checks at index time, settings and redaction.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  applyToShard,
  decorateTeamNote,
  emptySummary,
  projectNote,
  provenancePath,
  recountShard,
  renderPulledNote,
  retrustShard,
  shardFileName,
  teamAttachments,
  type LocalIdentity,
  type StoreRow,
  type TrustList,
} from '../../sources/team/shard.js';
import { parseNote } from '../../core/note/note.js';
import { displayUrl, loadTeamSettings, redact, secretsOf } from '../../sources/team/settings.js';
import { orTsQuery } from '../../sources/team/store.js';
import { originLabel } from '../../sinks/render/origin-label.js';

const row = (over: Partial<StoreRow> = {}): StoreRow => ({
  id: 'lrn-x',
  revision: 1,
  contentHash: 'h1',
  title: 'pool exhausted',
  body: 'close the pool\n',
  frontmatter: { id: 'lrn-x', title: 'pool exhausted', tags: ['pg'] },
  author: 'alice',
  machine: 'm-a',
  kb: '/kb',
  updatedAt: '2026-11-01T00:00:00.000Z',
  publishedAt: '2026-11-01T00:00:01.000Z',
  head: true,
  state: 'current',
  supersededBy: null,
  retiredBy: null,
  publisher: null,
  ...over,
});

/** carol's pull on machine m-c, with one KB of hers that pushed (publisher id p-carol). */
const carol: LocalIdentity = { role: 'carol', machine: 'm-c', publishers: new Map([['p-carol', '/home/carol/kb']]) };

const trust = (...names: string[]): TrustList => ({
  authors: Object.fromEntries(names.map((n) => [n, { authority: 'advisory' as const, since: '' }])),
});

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});
const tmp = (): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-shard-'));
  dirs.push(d);
  return d;
};

describe('projectNote (which revision this machine shows)', () => {
  it('shows the head, quarantined unless its author is trusted', () => {
    expect(projectNote([row()], trust(), carol)).toMatchObject({ quarantined: true, authority: 'advisory', heldBack: null });
    expect(projectNote([row()], { authors: { alice: { authority: 'promoted', since: '' } } }, carol)).toMatchObject({
      quarantined: false,
      authority: 'promoted',
    });
  });

  it("shows this state dir's own notes too, marked with the KB that published them (its index leaves them out)", () => {
    const mine = row({ author: 'carol', machine: 'm-c', publisher: 'p-carol', kb: '/home/carol/kb' });
    expect(projectNote([mine], trust(), carol)).toMatchObject({ localKb: '/home/carol/kb' });
    // Another person on the same host (another role), or another state dir (another publisher id): not ours.
    expect(projectNote([row({ machine: 'm-c' })], trust(), carol)).toMatchObject({ localKb: null });
    expect(projectNote([row({ author: 'carol', machine: 'm-c', publisher: 'p-other' })], trust(), carol)).toMatchObject({ localKb: null });
    // A teammate copying our publisher id (it is visible in the store) does not make its note ours.
    expect(projectNote([row({ machine: 'm-c', publisher: 'p-carol' })], trust(), carol)).toMatchObject({ localKb: null });
    // A row from before publisher ids: ours when our role published it from this machine.
    expect(projectNote([row({ author: 'carol', machine: 'm-c', kb: '/old' })], trust(), carol)).toMatchObject({ localKb: '/old' });
  });

  it('honours a retirement by the author or a trusted teammate, not by anyone else', () => {
    expect(projectNote([row({ state: 'forgotten', retiredBy: 'alice' })], trust(), carol)).toBeNull();
    expect(projectNote([row({ state: 'superseded', retiredBy: 'bob' })], trust('bob'), carol)).toBeNull();
    expect(projectNote([row({ state: 'superseded', retiredBy: 'mallory' })], trust('alice'), carol)).toMatchObject({
      quarantined: false,
      refused: { by: 'mallory' },
    });
  });

  it('a revision un-headed by an untrusted role that is not its author stays (no head at all: refused, not removed)', () => {
    const unheaded = [row({ head: false, retiredBy: 'mallory' })];
    expect(projectNote(unheaded, trust('alice'), carol)).toMatchObject({ row: { revision: 1 }, refused: { by: 'mallory' } });
    expect(projectNote(unheaded, trust(), carol)).toMatchObject({ quarantined: true, refused: { by: 'mallory' } });
    // By its author, or a trusted role: the note goes.
    expect(projectNote([row({ head: false, retiredBy: 'alice' })], trust(), carol)).toBeNull();
    expect(projectNote([row({ head: false, retiredBy: 'bob' })], trust('bob'), carol)).toBeNull();
    // Unknown (no retired_by recorded): refused.
    expect(projectNote([row({ head: false, state: 'forgotten' })], trust('alice'), carol)).toMatchObject({ refused: { by: 'unknown' } });
  });

  it('a newer revision that took the head is held back, and an untrusted author forgetting it brings the trusted one back', () => {
    const r1 = row({ revision: 1, head: false, state: 'superseded', retiredBy: 'mallory' });
    const r2 = row({ revision: 2, author: 'mallory', contentHash: 'h2', updatedAt: '2026-11-05T00:00:00.000Z' });
    expect(projectNote([r1, r2], trust('alice'), carol)).toMatchObject({ row: { revision: 1 }, heldBack: { revision: 2 }, refused: null });
    const r2gone = { ...r2, state: 'forgotten' as const, retiredBy: 'mallory' };
    expect(projectNote([r1, r2gone], trust('alice'), carol)).toMatchObject({
      row: { revision: 1 },
      heldBack: null,
      refused: { by: 'mallory' },
    });
  });

  it('keeps a trusted revision over a newer one by an untrusted author', () => {
    const rows = [
      row({ revision: 1, head: false, state: 'superseded', retiredBy: 'mallory', updatedAt: '2026-11-01T00:00:00.000Z' }),
      row({ revision: 2, head: true, author: 'mallory', machine: 'm-m', contentHash: 'h2', updatedAt: '2026-11-05T00:00:00.000Z' }),
    ];
    const p = projectNote(rows, trust('alice'), carol)!;
    expect(p.row.revision).toBe(1);
    expect(p.heldBack).toEqual({ revision: 2, author: 'mallory' });
    expect(projectNote(rows, trust('alice', 'mallory'), carol)!.row.revision).toBe(2);
    expect(projectNote(rows, trust(), carol)).toMatchObject({ row: { revision: 2 }, quarantined: true });
  });
});

describe('pulled note files', () => {
  it("replace the author's authority, quarantine and source claims, and keep a quarantined note's supersedes inert", () => {
    const p = projectNote(
      [
        row({
          frontmatter: { authority: 'law', quarantine: false, source_path: '/etc', supersedes: ['lrn-a'], share: 'team', title: 't' },
        }),
      ],
      trust(),
      carol,
    )!;
    const { text, provenance } = renderPulledNote(p, 'store-1', '2026-12-01T00:00:00Z');
    const note = parseNote(text, 'documents/x.md', 'documents');
    expect(note.authority).toBe('advisory');
    expect(note.quarantine).toBe(true);
    expect(note.frontmatter['supersedes']).toBeUndefined();
    expect(note.frontmatter['held_supersedes']).toEqual(['lrn-a']);
    expect(note.frontmatter['source_path']).toBe('team:alice@m-a:/kb');
    expect(note.key).toBe('lrn-x');
    expect(provenance).toMatchObject({ author: 'alice', quarantine: true, store: 'store-1' });
  });

  it('a note larger than recall reads is not written (and an older copy goes)', () => {
    const shard = tmp();
    const summary = emptySummary();
    applyToShard(shard, 'lrn-x', projectNote([row()], trust(), carol), 's1', summary, 'now');
    const huge = projectNote([row({ revision: 2, contentHash: 'h2', body: 'x'.repeat(1100 * 1024) })], trust(), carol);
    expect(applyToShard(shard, 'lrn-x', huge, 's1', summary, 'now')).toBe('too-large');
    expect(fs.readdirSync(path.join(shard, 'documents'))).toEqual([]);
    expect(summary.notes).toBe(0);
  });

  it('names files safely whatever the id holds', () => {
    const name = shardFileName('../../etc/passwd\n');
    expect(name).toMatch(/^[A-Za-z0-9._-]+\.md$/);
    expect(name.startsWith('.')).toBe(false);
    expect(shardFileName('a/b')).not.toBe(shardFileName('a-b'));
  });

  it('are written with a matching sidecar; a tampered file or a missing sidecar is quarantined at index time', () => {
    const shard = tmp();
    const summary = emptySummary();
    expect(applyToShard(shard, 'lrn-x', projectNote([row()], trust('alice'), carol), 's1', summary, 'now')).toBe('written');
    expect(applyToShard(shard, 'lrn-x', projectNote([row()], trust('alice'), carol), 's1', summary, 'now')).toBe('unchanged');
    expect(summary).toEqual({ notes: 1, quarantined: 0, authors: { alice: 1 } });
    const file = path.join(shard, 'documents', shardFileName('lrn-x'));
    const text = fs.readFileSync(file, 'utf8');
    const good = decorateTeamNote(parseNote(text, '@team/documents/x.md', 'documents'), file);
    expect(good).toMatchObject({ quarantine: false, origin: { author: 'alice', verified: true } });
    const forged = text.replace('quarantine: false', 'quarantine: false\nauthority: law');
    fs.writeFileSync(file, forged);
    const bad = decorateTeamNote(parseNote(forged, '@team/documents/x.md', 'documents'), file);
    expect(bad).toMatchObject({ quarantine: true, authority: 'advisory', origin: { author: 'unknown', verified: false } });
    fs.rmSync(provenancePath(file));
    expect(decorateTeamNote(parseNote(text, '@team/documents/x.md', 'documents'), file)?.quarantine).toBe(true);
    expect(recountShard(shard).notes).toBe(0);
  });

  it('the index of the KB that published a pulled note leaves it out; every other KB keeps it', () => {
    const shard = tmp();
    const mine = row({ author: 'carol', machine: 'm-c', publisher: 'p-carol', kb: '/home/carol/kb' });
    expect(applyToShard(shard, 'lrn-x', projectNote([mine], trust('carol'), carol), 's1', emptySummary(), 'now')).toBe('written');
    const file = path.join(shard, 'documents', shardFileName('lrn-x'));
    const note = parseNote(fs.readFileSync(file, 'utf8'), '@team/documents/x.md', 'documents');
    expect(decorateTeamNote(note, file, '/home/carol/kb')).toBeNull();
    expect(decorateTeamNote(note, file, '/home/carol/other-kb')).toMatchObject({ quarantine: false, origin: { author: 'carol' } });
  });

  it('retrust flips quarantine locally and makes a held supersedes list active again', () => {
    const shard = tmp();
    const summary = emptySummary();
    applyToShard(shard, 'lrn-x', projectNote([row({ frontmatter: { supersedes: 'lrn-old' } })], trust(), carol), 's1', summary, 'now');
    const { changed, summary: after } = retrustShard(shard, trust('alice'), 'later');
    expect(changed).toBe(1);
    expect(after).toEqual({ notes: 1, quarantined: 0, authors: { alice: 1 } });
    const file = path.join(shard, 'documents', shardFileName('lrn-x'));
    const note = decorateTeamNote(parseNote(fs.readFileSync(file, 'utf8'), '@team/documents/x.md', 'documents'), file)!;
    expect(note.quarantine).toBe(false);
    expect(note.frontmatter['supersedes']).toBe('lrn-old');
    expect(applyToShard(shard, 'lrn-x', null, 's1', after, 'now')).toBe('removed');
    expect(after.notes).toBe(0);
  });

  it("the shard is attached to a KB's index when it exists and is not the KB itself, whatever RECALL_TEAM_NOTES says", () => {
    const state = tmp();
    expect(teamAttachments(state, '/kb')).toEqual([]);
    fs.mkdirSync(path.join(state, 'team', 'shard', 'documents'), { recursive: true });
    expect(teamAttachments(state, '/kb')).toHaveLength(1);
    expect(teamAttachments(state, path.join(state, 'team', 'shard'))).toEqual([]);
  });

  it('labels show the author, strip control characters and say quarantined', () => {
    const origin = { kind: 'team' as const, author: 'al\nice\u001b[31m', machine: 'm-a', kb: '', store: '', revision: 1, verified: true };
    expect(originLabel({ origin, quarantine: true })).toBe('team: al ice [31m@m-a, quarantined');
    expect(originLabel({ quarantine: false })).toBeNull();
  });
});

describe('team settings', () => {
  it('never display or leak the password', () => {
    const url = 'postgres://alice:s3cr%40t-pw@db.example:5432/team?sslmode=verify-full&application_name=x';
    expect(displayUrl(url)).toBe('postgres://alice@db.example:5432/team?sslmode=verify-full');
    const secrets = secretsOf({ url, env: { PGPASSWORD: 'other-pw-123' } });
    expect(secrets).toEqual(expect.arrayContaining(['s3cr%40t-pw', 's3cr@t-pw', 'other-pw-123']));
    expect(redact(`failed for ${url} with s3cr@t-pw and other-pw-123`, secrets)).not.toMatch(/s3cr|other-pw/);
    expect(redact('connect postgres://bob:hunter2@h/db', [])).toBe('connect postgres://bob:***@h/db');
  });

  it('come from the environment first, then the config file; bad values fall back with a warning', () => {
    const state = tmp();
    fs.mkdirSync(path.join(state, 'team'), { recursive: true });
    fs.writeFileSync(
      path.join(state, 'team', 'config.json'),
      JSON.stringify({ url: 'postgres://file@h/db', schema: 'teamx', machine: 'box' }),
    );
    const fromFile = loadTeamSettings({}, state);
    expect(fromFile).toMatchObject({ url: 'postgres://file@h/db', source: 'config', schema: 'teamx', machine: 'box', liveArm: false });
    const fromEnv = loadTeamSettings(
      { RECALL_TEAM_URL: 'postgres://env@h/db', RECALL_TEAM_SCHEMA: 'Bad-Name', RECALL_TEAM_ARM: '1' },
      state,
    );
    expect(fromEnv).toMatchObject({ url: 'postgres://env@h/db', source: 'env', schema: 'recall', liveArm: true });
    expect(fromEnv.warnings.join('\n')).toMatch(/RECALL_TEAM_SCHEMA/);
  });

  it('turn a prompt into a safe OR full-text query', () => {
    expect(orTsQuery("what's the postgres pool & timeout | 'x' !")).toBe('postgres | pool | timeout');
    expect(orTsQuery('the and of')).toBe('');
  });
});
