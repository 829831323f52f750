/** Temporary KBs and state dirs for tests. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TempKb {
  root: string;
  state: string;
  write(rel: string, text: string | Buffer): string;
  remove(rel: string): void;
  cleanup(): void;
}

export function tempKb(): TempKb {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-spec-'));
  const root = path.join(base, 'kb');
  const state = path.join(base, 'state');
  fs.mkdirSync(path.join(root, 'documents'), { recursive: true });
  return {
    root,
    state,
    write(rel, text) {
      const abs = path.join(root, rel);
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, text);
      return abs;
    },
    remove(rel) {
      fs.rmSync(path.join(root, rel), { force: true });
    },
    cleanup() {
      // A recall server a hook started may still be writing in the state dir while it notices the
      // folder going away and exits (its run/ folder; the tool-call triggers it derives once a hook
      // answered, next to the index). rmSync's own retries only retry removing a folder, not what
      // refilled it: the whole removal is tried again instead.
      for (let attempt = 1; ; attempt += 1) {
        try {
          fs.rmSync(base, { recursive: true, force: true });
          return;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOTEMPTY' || attempt >= 40) throw err;
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
        }
      }
    },
  };
}

/** A well-formed learning note. */
export function noteText(id: string, title: string, body: string, extra: Record<string, unknown> = {}): string {
  const fm = { id, title, confidence: 'medium', tags: ['test'], key_insight: title, ...extra };
  const lines = Object.entries(fm).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  return `---\n${lines.join('\n')}\n---\n## Learning\n\n${body}\n\n**How to apply:** ${title}\n`;
}

/** Bump a file's mtime so an in-place edit within the same second is still seen as a change. */
export function touchLater(abs: string, seconds = 5): void {
  const t = new Date(Date.now() + seconds * 1000);
  fs.utimesSync(abs, t, t);
}
