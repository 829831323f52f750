/**
 * Concurrent writers: many `recall add`, `recall supersede` and `recall forget` at once while
 * `recall index` and recalls run, and many supersessions of one note. Prints how many writes landed,
 * how many exited 0 although they printed an error, and how many failed with a clear message.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { cli, freshCase, note, run, type Run } from './harness.js';

/** The frontmatter of a note file as a plain object ({} when unreadable). */
function frontmatter(file: string): Record<string, unknown> {
  try {
    const text = fs.readFileSync(file, 'utf8');
    const end = text.indexOf('\n---', 3);
    return (parseDocument(text.slice(4, end)).toJS() as Record<string, unknown>) ?? {};
  } catch {
    return {};
  }
}

/** Exit codes, and the runs that said "error" on stderr but exited 0 (a write that lied). */
function tally(runs: readonly Run[]): string {
  const codes = new Map<string, number>();
  for (const r of runs) codes.set(String(r.code), (codes.get(String(r.code)) ?? 0) + 1);
  const lied = runs.filter((r) => r.code === 0 && /error/i.test(r.stderr)).length;
  return `exit codes ${[...codes].map(([c, n]) => `${c}×${n}`).join(' ')}; exit 0 with an error printed: ${lied}`;
}

function line(name: string, runs: readonly Run[], detail: string): void {
  const ms = Math.max(...runs.map((r) => r.ms));
  process.stdout.write(`| ${name} | ${Math.round(ms)} ms (slowest) | ${tally(runs)} | - | ${detail} |\n`);
}

export const WRITE_CASES: Record<string, () => Promise<void>> = {
  async 'concurrent-writers'() {
    const c = freshCase();
    const docs = path.join(c.kb, 'documents');
    for (let i = 0; i < 22; i += 1)
      fs.writeFileSync(path.join(docs, `old${i}.md`), note(`old${i}`, `postgres old note ${i}`, `old body ${i}`));
    for (let i = 0; i < 22; i += 1)
      fs.writeFileSync(path.join(docs, `gone${i}.md`), note(`gone${i}`, `postgres gone note ${i}`, `gone ${i}`));
    const env = c.env;
    const kb = ['--kb', c.kb];
    const indexing = run(cli('index', ...kb), { env });
    const recalls = Array.from({ length: 4 }, (_, i) => run(cli(...kb, `postgres note ${i}`, '--no-cache'), { env }));
    const adds = Array.from({ length: 20 }, (_, i) =>
      run(cli('add', ...kb, '--title', `concurrent add ${i}`, '--insight', `insight of add ${i}`), { env }),
    );
    const sups = Array.from({ length: 22 }, (_, i) => run(cli('supersede', ...kb, `old${i}`, 'lrn-pool'), { env }));
    const forgets = Array.from({ length: 22 }, (_, i) => run(cli('forget', ...kb, `gone${i}`), { env }));
    const writes = await Promise.all([...adds, ...sups, ...forgets]);
    if (process.env['HOSTILE_DUMP']) for (const w of writes) if (w.stderr.trim()) process.stderr.write(w.stderr);
    await Promise.all([indexing, ...recalls]);
    const texts = fs.readdirSync(docs).map((f) => (f.endsWith('.md') ? fs.readFileSync(path.join(docs, f), 'utf8') : ''));
    const added = Array.from({ length: 20 }, (_, i) => texts.some((t) => t.includes(`concurrent add ${i}"`))).filter(Boolean).length;
    const hub = frontmatter(path.join(docs, 'pool.md'))['supersedes'];
    const listed = Array.isArray(hub) ? hub.length : 0;
    const retired = Array.from({ length: 22 }, (_, i) => frontmatter(path.join(docs, `old${i}.md`))['superseded_by'] === 'lrn-pool').filter(
      Boolean,
    ).length;
    const forgotten = Array.from({ length: 22 }, (_, i) => !fs.existsSync(path.join(docs, `gone${i}.md`))).filter(Boolean).length;
    const ok = (rs: Run[]): number => rs.filter((r) => r.code === 0).length;
    line(
      '64 concurrent add/supersede/forget during `recall index` and 4 recalls',
      writes,
      `adds landed ${added}/20 (exit 0: ${ok(writes.slice(0, 20))}); hub lists ${listed}/22, olds retired ${retired}/22 (exit 0: ${ok(writes.slice(20, 42))}); forgotten ${forgotten}/22 (exit 0: ${ok(writes.slice(42))})`,
    );
  },
  async 'supersede-hub'() {
    const c = freshCase();
    const docs = path.join(c.kb, 'documents');
    fs.writeFileSync(path.join(docs, 'hub.md'), note('hub', 'postgres hub note', 'the one that replaces them'));
    for (let i = 0; i < 9; i += 1) fs.writeFileSync(path.join(docs, `old${i}.md`), note(`old${i}`, `postgres old ${i}`, `old ${i}`));
    const runs = await Promise.all(
      Array.from({ length: 9 }, (_, i) => run(cli('supersede', '--kb', c.kb, `old${i}`, 'hub'), { env: c.env })),
    );
    const hub = frontmatter(path.join(docs, 'hub.md'))['supersedes'];
    line('9 concurrent `recall supersede oldN hub`', runs, `hub's supersedes lists ${Array.isArray(hub) ? hub.length : 0} of 9`);
  },
};
