/**
 * Claude Code memory files as recall reads them (core/note): the memory kind from either format, and
 * the older memory a newer one says it replaces ("[[CI runs on Jenkins]] is obsolete"), which recall
 * then treats as superseded: left out of recalls, the newer one given instead.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import { extraFieldsText, memoryNameWords, parseNote, replacedLinks } from '../../core/note/index.js';
import { DEFAULT_COMMAND, openSession } from '../../pipeline/run.js';
import { listNotes, showNote } from '../../pipeline/notes/notes.js';
import { tempKb, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';

const memory = (fm: string[], body: string): string => ['---', ...fm, '---', body, ''].join('\n');

const kbs: TempKb[] = [];
afterEach(() => {
  for (const k of kbs.splice(0)) k.cleanup();
});

/** A KB of these memory files (name → text), its environment, and a session over it. */
async function memoryKb(files: Record<string, string>) {
  const k = tempKb();
  kbs.push(k);
  for (const [name, text] of Object.entries(files)) k.write(`documents/${name}`, text);
  const env = { PATH: process.env['PATH'] ?? '', HOME: k.state, REFLECT_STATE_DIR: k.state, ...driverEnv() };
  const io = { env, cwd: k.root, warn: () => undefined };
  const session = await openSession({ kb: k.root, global: false, allBranches: false, verbose: false }, io);
  return { k, io, session };
}

const JENKINS = memory(
  ['name: CI runs on Jenkins', 'description: rerun a PR build by commenting "jenkins retest this"', 'type: project'],
  'CI runs on Jenkins at ci.example.internal. To rerun a failed PR build, comment `jenkins retest this`.\n\n**How to apply:** failed PR checks.',
);
const ACTIONS = memory(
  [
    'name: ci-github-actions',
    'description: CI moved from Jenkins to GitHub Actions; rerun failed jobs with gh run rerun --failed',
    'metadata:',
    '  type: project',
  ],
  'Since June CI runs on GitHub Actions; the Jenkins job is gone, so [[CI runs on Jenkins]] is obsolete. See [[bench-host]] for perf runs.\n\n**How to apply:** failed PR checks: `gh run rerun <id> --failed`.',
);

describe('Claude Code memory files', () => {
  it('reads the memory kind from metadata.type and from the older top-level type', () => {
    expect(parseNote(ACTIONS, 'ci_actions.md', 'documents').memoryType).toBe('project');
    expect(parseNote(JENKINS, 'ci_jenkins.md', 'documents').memoryType).toBe('project');
    // A reflect note's `type: learning` is no memory kind.
    expect(parseNote(memory(['id: lrn-x', 'type: learning'], 'x'), 'x.md', 'documents').memoryType).toBeUndefined();
  });

  it('reads the links a memory says it replaces, not the ones it merely points to', () => {
    expect(parseNote(ACTIONS, 'ci_actions.md', 'documents').replaces).toEqual(['CI runs on Jenkins']);
    expect(replacedLinks('sarama is gone from go.mod and [[ingestd Kafka client is sarama]] no longer applies.')).toEqual([
      'ingestd Kafka client is sarama',
    ]);
    expect(replacedLinks('Reserve the box first, see [[bench-host]].')).toEqual([]);
    expect(replacedLinks('Staging proves little ([[Staging is not prod-shaped]]); test on perf instead.')).toEqual([]);
    // A note "replacing" a pile of others replaces none of them.
    expect(replacedLinks('[[a]], [[b]], [[c]] and [[d]] are all obsolete.')).toEqual([]);
  });
});

describe("a memory's date", () => {
  it("reads Claude Code's `modified` (top level or under metadata), else the file's mtime, as Claude Code does", async () => {
    const fm = (extra: string[]): string[] => ['name: pool-size', 'description: size the pool per worker', ...extra];
    const nested = parseNote(memory(fm(['metadata:', '  type: feedback', '  modified: 2026-11-02T10:00:00Z']), 'x'), 'a.md', 'documents');
    const top = parseNote(memory(fm(['modified: 2026-10-01']), 'x'), 'b.md', 'documents');
    expect([nested.dateMs, top.dateMs]).toEqual([Date.parse('2026-11-02T10:00:00Z'), Date.parse('2026-10-01')]);
    // A memory with no date of its own is as old as its file; a note with an id keeps no date.
    const { k, io, session } = await memoryKb({ 'undated.md': memory(fm([]), 'Each worker opens its own pool.') });
    session.close();
    k.write('documents/reflect-note.md', memory(['id: reflect-note', 'title: A reflect note'], 'body'));
    const when = new Date('2026-09-15T08:00:00Z');
    for (const f of ['undated.md', 'reflect-note.md']) fs.utimesSync(`${k.root}/documents/${f}`, when, when);
    const listed = listNotes({ kb: k.root, global: false, allBranches: false, all: true }, io);
    expect(listed.map((n) => [n.id, n.date]).sort()).toEqual([
      ['pool-size', '2026-09-15'],
      ['reflect-note', null],
    ]);
  });
});

describe('a touched note that does not parse', () => {
  it('stays a skipped note and keeps the index refreshing the others', async () => {
    const broken = memory(['name: broken', 'description: [unclosed'], 'body');
    const { k, io, session } = await memoryKb({
      'broken.md': broken,
      'undated.md': memory(['name: pool-size'], 'Each worker opens its own pool.'),
    });
    session.close();
    // Touched, not changed (an editor's save, a checkout); and a new note beside it.
    const when = new Date('2026-09-15T08:00:00Z');
    fs.utimesSync(`${k.root}/documents/broken.md`, when, when);
    k.write('documents/added.md', memory(['id: added-note', 'title: Added later'], 'body'));
    const listed = listNotes({ kb: k.root, global: false, allBranches: false, all: true }, io);
    expect(listed.map((n) => n.id).sort()).toEqual(['added-note', 'pool-size']);
  });
});

describe('a memory folder with a replaced memory', () => {
  it('gives the newer memory and leaves out the one it replaces, which is shown as superseded', async () => {
    const { k, io, session } = await memoryKb({ 'project_ci_jenkins.md': JENKINS, 'project_ci_github_actions.md': ACTIONS });
    try {
      const res = await session.run(
        { ...DEFAULT_COMMAND, query: 'how do I rerun the failed PR build on CI', cache: false, floor: 0 },
        { noLog: true },
      );
      const paths = (res.outcome?.results ?? []).map((r) => r.note.path);
      expect(paths).toContain('documents/project_ci_github_actions.md');
      expect(paths).not.toContain('documents/project_ci_jenkins.md');
      const drop = res.outcome?.drops.find((d) => d.stage === 'superseded');
      expect(drop?.reason).toMatch(/^superseded by ci-github-actions/);
    } finally {
      session.close();
    }
    // Marked where recall shows it: `list --all` and `show`.
    const listed = listNotes({ kb: k.root, global: false, allBranches: false, all: true }, io);
    expect(listed.find((n) => n.path.endsWith('project_ci_jenkins.md'))?.state).toBe('superseded');
    expect(listed.find((n) => n.path.endsWith('project_ci_github_actions.md'))?.state).toBe('live');
    const older = listed.find((n) => n.path.endsWith('project_ci_jenkins.md'))!;
    expect(showNote(older.id, { kb: k.root, global: false, allBranches: false }, io).superseded_by).toBe('ci-github-actions');
  });
});

describe('a replaced memory that is about the query', () => {
  it('passes its relevance to the memory that replaces it, and stays out itself, on a cache hit too', async () => {
    const { session } = await memoryKb({ 'project_ci_jenkins.md': JENKINS, 'project_ci_github_actions.md': ACTIONS });
    try {
      // Only the replaced memory says "retest" and "comment": the question is about it, in its words.
      for (const cache of [true, true]) {
        const res = await session.run({ ...DEFAULT_COMMAND, query: 'comment retest on the PR build', cache, floor: 0 }, { noLog: true });
        const byPath = new Map((res.outcome?.results ?? []).map((r) => [r.note.path, r.relevance]));
        expect(byPath.has('documents/project_ci_jenkins.md')).toBe(false);
        expect(byPath.get('documents/project_ci_github_actions.md') ?? 0).toBeGreaterThanOrEqual(0.5);
      }
    } finally {
      session.close();
    }
  });
});

describe("a memory's name is its subject", () => {
  it('reads the name as words of a memory, not of a note with an id or a title of its own', () => {
    expect(memoryNameWords({ name: 'commit-message-format', description: 'x' })).toBe('commit message format');
    expect(memoryNameWords({ name: 'review_fixup_commits' })).toBe('review fixup commits');
    expect(memoryNameWords({ name: 'ex-07-sqlite-wal', title: 'SQLite WAL grows' })).toBe('');
    expect(memoryNameWords({ name: 'x-y', id: 'lrn-x' })).toBe('');
    // Searched with the note: its words are in the text the index and the estimate read.
    expect(extraFieldsText({ frontmatter: { name: 'commit-message-format' } })).toContain('commit message format');
  });

  const COMMITS = memory(
    [
      'name: commit-message-format',
      'description: Conventional Commits with a required component scope and a why-body',
      'metadata:',
      '  type: feedback',
    ],
    'Use `type(scope): summary`, scope is the component (ingestd, queryd). The body says why.\n\n**How to apply:** every commit.',
  );
  const DEPLOYS = memory(
    [
      'name: deploys-via-argocd',
      'description: Deploys and config changes go through Argo CD from the deploy repo',
      'metadata:',
      '  type: project',
    ],
    'Never kubectl apply or scale by hand; open a PR against the deploy repo and let Argo CD sync.',
  );

  async function relevanceOf(query: string): Promise<Map<string, number>> {
    const { session } = await memoryKb({ 'feedback_commit_messages.md': COMMITS, 'project_deploy_gitops.md': DEPLOYS });
    try {
      const res = await session.run({ ...DEFAULT_COMMAND, query, cache: false, floor: 0 }, { noLog: true });
      return new Map((res.outcome?.results ?? []).map((r) => [r.note.path, r.relevance]));
    } finally {
      session.close();
    }
  }

  it('finds a rule named by two of its name words, though each is an everyday word its text never pairs', async () => {
    const rel = await relevanceOf('looks good, commit it with a decent message');
    expect(rel.get('documents/feedback_commit_messages.md') ?? 0).toBeGreaterThanOrEqual(0.5);
  });

  it('does not take one shared name word for the subject (`commit()` on a writer is no commit message)', async () => {
    const rel = await relevanceOf('what does `commit()` on ManifestWriter do if the object already exists in the bucket?');
    expect(rel.get('documents/feedback_commit_messages.md') ?? 0).toBeLessThan(0.3);
  });

  it('does not count a name word the query says only as a function it calls (`Batch.commit()` sends a message)', async () => {
    const called = await relevanceOf("the writer's Batch.commit() sends every message twice when the flush timer fires, find the race");
    expect(called.get('documents/feedback_commit_messages.md') ?? 0).toBeLessThan(0.3);
    // Said in words as well as called, it counts again.
    const said = await relevanceOf('after Batch.commit() returns, commit it with a decent message');
    expect(said.get('documents/feedback_commit_messages.md') ?? 0).toBeGreaterThanOrEqual(0.5);
  });

  it('finds a rule whose How to apply alone names the asked work, though the prompt shares no word with it', async () => {
    const catalog = memory(
      [
        'name: gradle-version-catalog',
        'description: Versions go in gradle/libs.versions.toml as libs.* aliases',
        'metadata:',
        '  type: feedback',
      ],
      'Never a "group:artifact:version" string in a module.\n\n**How to apply:** Adding, upgrading or removing any dependency or plugin.',
    );
    const { session } = await memoryKb({ 'feedback_gradle_version_catalog.md': catalog, 'project_deploy_gitops.md': DEPLOYS });
    try {
      const res = await session.run(
        { ...DEFAULT_COMMAND, query: 'pull in resilience4j for the retries in the norrland client', cache: false },
        { noLog: true },
      );
      expect((res.outcome?.results ?? []).map((r) => r.note.path)).toEqual(['documents/feedback_gradle_version_catalog.md']);
    } finally {
      session.close();
    }
  });
});
