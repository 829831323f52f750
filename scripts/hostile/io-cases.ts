/** Hostile I/O around the process: stdin left open, a FIFO as the log, a full disk, corrupted index pages, a model daemon that never answers. */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { PROMPT, contextOf, freshCase, hook, note, repo, row, run, type Run } from './harness.js';

export const IO_CASES: Record<string, () => Promise<void>> = {
  async 'open-stdin'() {
    const c = freshCase();
    const r = await run(hook('user-prompt-submit'), { env: { ...c.env, REFLECT_RECALL_TIMEOUT: '5' }, stdin: PROMPT, keepStdinOpen: true });
    row('stdin left open after the JSON (5 s deadline)', r, `context ${contextOf(r.stdout).length} chars`);
  },
  async 'fifo-log'() {
    const c = freshCase();
    execFileSync('mkfifo', [path.join(c.state, 'recall_log.jsonl')]);
    const r = await run(hook('user-prompt-submit'), { env: c.env, stdin: PROMPT });
    row('recall_log.jsonl is a FIFO', r, `context ${contextOf(r.stdout).length} chars`);
  },
  async 'full-disk'() {
    const c = freshCase();
    const mnt = path.join(c.base, 'tmpfs');
    fs.mkdirSync(mnt);
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt]).status !== 0) {
      process.stdout.write('| full disk | skipped: cannot mount a tmpfs here | | | |\n');
      return;
    }
    const env = { ...c.env, REFLECT_STATE_DIR: mnt, HOME: mnt };
    try {
      await run(hook('user-prompt-submit'), { env, stdin: PROMPT });
      spawnSync('dd', ['if=/dev/zero', `of=${path.join(mnt, 'filler')}`, 'bs=64k'], { stdio: 'ignore' });
      fs.writeFileSync(path.join(c.kb, 'documents', 'new.md'), note('lrn-new', 'postgres pool new note', 'added while the disk is full'));
      let r: Run | null = null;
      const times: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        r = await run(hook('user-prompt-submit'), {
          env,
          stdin: JSON.stringify({ session_id: `full${i}`, prompt: 'postgres connection pool exhausted in tests' }),
        });
        times.push(Math.round(r.ms));
      }
      const aside = fs.readdirSync(path.join(mnt, 'index')).filter((f) => f.includes('.corrupt')).length;
      row(
        'state dir on a full 1 MB tmpfs (3 calls)',
        r!,
        `ms per call ${times.join('/')}, context ${contextOf(r!.stdout).length} chars, ${aside} index copies set aside`,
      );
    } finally {
      // The recall server a hook started keeps files open on the tmpfs: stop it, or the unmount fails.
      spawnSync(path.join(repo, 'bin', 'recall'), ['daemon', 'stop'], { env, stdio: 'ignore' });
      spawnSync('umount', [mnt]);
    }
  },
  async 'corrupt-pages'() {
    const c = freshCase();
    for (let i = 0; i < 300; i += 1)
      fs.writeFileSync(path.join(c.kb, 'documents', `n${i}.md`), note(`lrn-n${i}`, `postgres pool note ${i}`, `body ${i} `.repeat(40)));
    await run(hook('user-prompt-submit'), { env: c.env, stdin: PROMPT });
    const file = path.join(
      c.state,
      'index',
      fs.readdirSync(path.join(c.state, 'index')).find((f) => f.endsWith('.sqlite'))!,
    );
    const fd = fs.openSync(file, 'r+');
    const size = fs.fstatSync(fd).size;
    // Data pages only (the second half of the file): the schema and meta pages stay readable.
    for (let off = Math.floor(size / 2 / 4096) * 4096; off < size; off += 4096 * 2)
      fs.writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, off);
    fs.closeSync(fd);
    let last: Run | null = null;
    const lens: number[] = [];
    let total = 0;
    for (let i = 0; i < 3; i += 1) {
      last = await run(hook('user-prompt-submit'), {
        env: c.env,
        stdin: JSON.stringify({ session_id: `s${i}`, prompt: 'postgres connection pool exhausted in tests' }),
      });
      total += last.ms;
      lens.push(contextOf(last.stdout).length);
    }
    const aside = fs.readdirSync(path.join(c.state, 'index')).filter((f) => f.includes('.corrupt')).length;
    row(
      'random bytes over index data pages (3 calls)',
      { ...last!, ms: total },
      `context chars per call ${lens.join('/')}, ${aside} copies set aside`,
    );
  },
  async 'hung-daemon'() {
    const c = freshCase();
    // Models "installed" (files present) and a daemon socket that accepts and never answers.
    const models = path.join(c.base, 'models');
    for (const id of ['cross-encoder/ms-marco-MiniLM-L-6-v2', 'sentence-transformers/all-mpnet-base-v2']) {
      fs.mkdirSync(path.join(models, id, 'onnx'), { recursive: true });
      for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'])
        fs.writeFileSync(path.join(models, id, f), '{}');
    }
    const env: NodeJS.ProcessEnv = { ...c.env, REFLECT_MODELS_DIR: models };
    delete env['REFLECT_NO_DAEMON'];
    const { loadConfig } = (await import(path.join(repo, 'dist', 'pipeline', 'config', 'config.js'))) as {
      loadConfig: (e: NodeJS.ProcessEnv) => unknown;
    };
    const { createModelClient } = (await import(path.join(repo, 'dist', 'pipeline', 'model-client.js'))) as {
      createModelClient: (c: unknown, e: NodeJS.ProcessEnv) => { socket: string | null };
    };
    const socket = createModelClient(loadConfig(env), env).socket;
    if (!socket) {
      process.stdout.write('| hung model daemon | skipped: no daemon socket for this setup | | | |\n');
      return;
    }
    fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
    const net = await import('node:net');
    const held: import('node:net').Socket[] = [];
    const server = net.createServer((s) => held.push(s));
    await new Promise<void>((r) => server.listen(socket, r));
    try {
      const r = await run(hook('user-prompt-submit'), { env, stdin: PROMPT });
      row('hung model daemon, default deadline (UPS hook)', r, `context ${contextOf(r.stdout).length} chars`);
    } finally {
      for (const s of held) s.destroy();
      server.close();
    }
  },
};
