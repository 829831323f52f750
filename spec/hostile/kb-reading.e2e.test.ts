/**
 * Hostile KB contents: each case is reproduced with the real hook process and must end with one
 * valid envelope inside the deadline (plus the harness margin), or the safe outcome.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { expectEnvelope, hostileCase, mkfifo, note, prompt, runCli, runHook, type Case } from './helpers.js';
import { parseYamlMapping, splitFrontmatter } from '../../core/frontmatter.js';

let c: Case;
afterEach(() => c?.cleanup());

const DEADLINE_S = 5;

/** 598 bytes of YAML that expand to 12^9 nodes (anchors a0..a8, each 12 aliases of the previous). */
function aliasBomb(): string {
  const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i <= 8; i += 1) lines.push(`a${i}: &a${i} [${Array.from({ length: 12 }, () => `*a${i - 1}`).join(', ')}]`);
  return lines.join('\n');
}

describe('hostile KB files', () => {
  it('YAML alias bomb: the note is refused by the node budget, the others are recalled', async () => {
    c = hostileCase();
    fs.writeFileSync(path.join(c.kb, 'documents', 'bomb.md'), `---\nid: lrn-bomb\ntitle: postgres pool bomb\n${aliasBomb()}\n---\nbody\n`);
    fs.writeFileSync(path.join(c.kb, 'documents', 'bomb.entities.yaml'), aliasBomb());
    const r = await runHook('user-prompt-submit', { env: { ...c.env, REFLECT_RECALL_TIMEOUT: String(DEADLINE_S) }, stdin: prompt() });
    const ctx = expectEnvelope(r, DEADLINE_S * 1000);
    expect(ctx).toContain('[lrn-pool]');
    expect(ctx).not.toContain('lrn-bomb');
    const idx = await runCli(['index', '--kb', c.kb], { env: c.env });
    expect(idx.stderr).toMatch(/skipped documents\/bomb\.md: YAML expands to more than \d+ nodes/);
  });

  it('the node budget is a bound on expansion, not on honest YAML', () => {
    expect(() => splitFrontmatter(`---\n${aliasBomb()}\n---\nx`)).toThrow(/alias bomb/);
    const honest = { entities: Array.from({ length: 2000 }, (_, i) => ({ name: `e${i}`, type: 'tool' })) };
    expect(Object.keys(parseYamlMapping(JSON.stringify(honest)))).toEqual(['entities']);
    // A few aliases are fine.
    expect(splitFrontmatter('---\nbase: &b {x: 1}\nother: *b\n---\nbody').frontmatter).toEqual({ base: { x: 1 }, other: { x: 1 } });
  });

  it('documents/pm.md -> /proc/self/pagemap (stat size 0, endless read) is not followed', async () => {
    c = hostileCase();
    fs.symlinkSync('/proc/self/pagemap', path.join(c.kb, 'documents', 'pm.md'));
    const r = await runHook('user-prompt-submit', { env: { ...c.env, REFLECT_RECALL_TIMEOUT: String(DEADLINE_S) }, stdin: prompt() });
    expect(expectEnvelope(r, DEADLINE_S * 1000)).toContain('[lrn-pool]');
  });

  it('a link into /proc is read bounded when outside links are allowed', async () => {
    c = hostileCase();
    fs.symlinkSync('/proc/self/pagemap', path.join(c.kb, 'documents', 'pm.md'));
    const env = { ...c.env, REFLECT_RECALL_TIMEOUT: String(DEADLINE_S), RECALL_FOLLOW_OUTSIDE_LINKS: '1' };
    const r = await runHook('user-prompt-submit', { env, stdin: prompt() });
    expect(expectEnvelope(r, DEADLINE_S * 1000)).toContain('[lrn-pool]');
    const idx = await runCli(['index', '--kb', c.kb], { env });
    expect(idx.stderr).toMatch(/skipped documents\/pm\.md: (file too large|binary file|cannot read)/);
  });

  it('documents/rootlink -> / is not walked (the state dir stays small)', async () => {
    c = hostileCase();
    fs.symlinkSync('/', path.join(c.kb, 'documents', 'rootlink'));
    const r = await runHook('user-prompt-submit', { env: { ...c.env, REFLECT_RECALL_TIMEOUT: String(DEADLINE_S) }, stdin: prompt() });
    expect(expectEnvelope(r, DEADLINE_S * 1000)).toContain('[lrn-pool]');
    const bytes = fs.readdirSync(path.join(c.state, 'index')).reduce((n, f) => n + fs.statSync(path.join(c.state, 'index', f)).size, 0);
    expect(bytes).toBeLessThan(2 * 1048576);
  });

  it('links out of the KB are never indexed nor returned (hydrate, recall); links inside it are', async () => {
    c = hostileCase();
    const secret = path.join(c.base, 'creds.md');
    fs.writeFileSync(secret, note('lrn-creds', 'postgres pool credentials', 'aws_secret_access_key AKIAABCDEFGHIJKLMNOP'));
    fs.symlinkSync(secret, path.join(c.kb, 'documents', 'creds.md'));
    fs.symlinkSync('/etc/passwd', path.join(c.kb, 'documents', 'passwd.md'));
    fs.mkdirSync(path.join(c.kb, 'shared'));
    fs.writeFileSync(path.join(c.kb, 'shared', 'inner.md'), note('lrn-inner', 'postgres pool inner link', 'linked from inside the KB'));
    fs.symlinkSync(path.join(c.kb, 'shared', 'inner.md'), path.join(c.kb, 'documents', 'inner.md'));
    const hydrate = await runCli(['stages', 'hydrate', 'lrn-creds', 'lrn-inner', '--kb', c.kb], { env: c.env });
    expect(hydrate.stdout).not.toContain('AKIAABCDEFGHIJKLMNOP');
    expect(hydrate.stdout).not.toMatch(/root:x:0:0/);
    expect(hydrate.stdout).toContain('linked from inside the KB');
    const recall = await runCli(['--kb', c.kb, 'postgres pool credentials', '--format', 'json', '--verbose'], { env: c.env });
    expect(recall.stdout).not.toContain('lrn-creds');
    expect(recall.stderr).toMatch(/skipped documents\/creds\.md: symlink to .*outside the KB; not followed/);
  });

  it('a FIFO or device among the notes is skipped, not opened', async () => {
    c = hostileCase();
    mkfifo(path.join(c.kb, 'documents', 'pipe.md'));
    const r = await runHook('user-prompt-submit', { env: { ...c.env, REFLECT_RECALL_TIMEOUT: String(DEADLINE_S) }, stdin: prompt() });
    expect(expectEnvelope(r, DEADLINE_S * 1000)).toContain('[lrn-pool]');
  });
});
