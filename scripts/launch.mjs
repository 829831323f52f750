// Starts recall from its install folder, building the bundle on first use when the folder was
// installed without a build step (a plugin manager copies the repository and installs its
// dependencies with install scripts switched off, so `dist/` does not exist yet).
//
//   node scripts/launch.mjs hook <session-start|user-prompt-submit|subagent-start>   (hook JSON on stdin)
//   node scripts/launch.mjs recall [args...]                                          (the CLI; bin/recall)
//
// The first run bundles the TypeScript sources with esbuild (a dependency, no install script
// needed) into dist/bundle/ — about half a second — atomically, so concurrent first runs never see
// a half-written bundle. A hook whose bundle cannot be built or loaded still answers with one valid,
// empty envelope and exit 0, and leaves the reason in $REFLECT_STATE_DIR/last-event.json.
// Plain JavaScript on purpose: this file runs before anything is built.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { hookEvents } from './hook-names.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [kind, ...rest] = process.argv.slice(2);

/** Hook name → event; empty when hooks.json cannot be read (the hook then answers the plainest empty envelope). */
function readHookEvents() {
  try {
    return hookEvents(root);
  } catch {
    return {};
  }
}
// Read only on the hook path (a plain `recall` call never needs it), once.
let hookEventsRead = null;
const hookEventsOf = () => (hookEventsRead ??= readHookEvents());

/**
 * The envelope of "nothing to add" for this hook and harness: what a hook prints when it cannot run.
 * The same shapes as sinks/hook-envelope.ts: Copilot reads `additionalContext` at the top level, and
 * its prompt hook (userPromptTransformed) leaves the prompt unchanged with `{}`; Claude Code and Codex
 * read `hookSpecificOutput` naming the event.
 */
function emptyEnvelope(name) {
  const harness = (process.env.REFLECT_HARNESS ?? '').trim().toLowerCase();
  const event = hookEventsOf()[name];
  if (harness === 'copilot') return event === 'UserPromptSubmit' || !event ? '{}\n' : '{"additionalContext":""}\n';
  if (!event) return '{}\n';
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: '' } })}\n`;
}

/**
 * The line shown to the person (Claude Code's `systemMessage`, never seen by the model) when the
 * session-start hook cannot start recall at all: what broke and the one command that repairs it. A
 * plugin copy is repaired by reinstalling the plugin, a clone by installing its dependencies. Codex
 * (PLUGIN_ROOT, REFLECT_HARNESS=codex) and Copilot document no such field and get none.
 */
function startFailureNotice(name, detail) {
  const harness = (process.env.REFLECT_HARNESS ?? '').trim().toLowerCase();
  if (name !== 'session-start' || (harness && harness !== 'claude') || process.env.PLUGIN_ROOT) return null;
  const plugin = root.split(path.sep).join('/').includes('/.claude/plugins/');
  const fix = plugin
    ? 'reinstall the plugin: claude plugin uninstall recall@recall && claude plugin install recall@recall'
    : `install it: cd ${JSON.stringify(root)} && npm ci`;
  return `recall cannot start (${String(detail).split('\n')[0].slice(0, 300)}); ${fix}`;
}

function breadcrumb(hook, detail) {
  try {
    const home = process.env.HOME || os.homedir();
    const raw = (process.env.REFLECT_STATE_DIR ?? '').trim();
    // As core/state-dir.ts: a relative setting is taken from HOME, not from the project the hook runs in.
    const state = raw ? path.resolve(home, raw === '~' ? '.' : raw.startsWith('~/') ? raw.slice(2) : raw) : path.join(home, '.reflect');
    fs.mkdirSync(state, { recursive: true, mode: 0o700 });
    const file = path.join(state, 'last-event.json');
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(
      tmp,
      JSON.stringify({ event: 'error', hook, kind: 'launch', detail: String(detail).slice(0, 500), ts: new Date().toISOString() }),
      { mode: 0o600 },
    );
    fs.renameSync(tmp, file);
  } catch {
    /* best effort: the envelope matters more */
  }
}

/**
 * Build dist/data/ (word counts and WordNet relations for the relevance estimate and the lexical
 * arm; about 3 s, once) if it is missing. Without it recall still answers, more slowly and without
 * related words, so a failure here is not fatal.
 */
async function ensureData() {
  const data = path.join(root, 'dist', 'data');
  if (fs.existsSync(path.join(data, 'stem-counts.tsv')) && fs.existsSync(path.join(data, 'wordnet-expand.tsv'))) return;
  const tmp = path.join(root, 'dist', `.data-${process.pid}-${Date.now()}`);
  try {
    const { buildStemCounts } = await import(pathToFileURL(path.join(root, 'scripts', 'build-data.mjs')).href);
    const { buildWordnet } = await import(pathToFileURL(path.join(root, 'scripts', 'build-wordnet.mjs')).href);
    await buildStemCounts(root, tmp);
    buildWordnet(root, tmp);
    // A half-present dist/data (a file deleted by hand) is replaced whole.
    fs.rmSync(data, { recursive: true, force: true });
    fs.renameSync(tmp, data);
  } catch {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Build dist/bundle/ if it is missing. Throws with a one-line reason when it cannot. */
async function ensureBundle(entryFile) {
  await ensureData();
  if (fs.existsSync(entryFile)) return;
  const dist = path.join(root, 'dist');
  const tmp = path.join(dist, `.bundle-${process.pid}-${Date.now()}`);
  let esbuildBundle;
  try {
    ({ bundle: esbuildBundle } = await import(pathToFileURL(path.join(root, 'scripts', 'bundle.mjs')).href));
  } catch (err) {
    throw new Error(`recall is not built and cannot build itself here (${err.message.split('\n')[0]}); run \`npm ci\` in ${root}`, {
      cause: err,
    });
  }
  fs.mkdirSync(dist, { recursive: true });
  try {
    await esbuildBundle(root, tmp, { sourcemap: false });
    fs.renameSync(tmp, path.join(dist, 'bundle'));
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    // Another first run may have won the race: its bundle is complete (it was renamed into place).
    if (!fs.existsSync(entryFile)) throw new Error(`first-run build in ${dist} failed: ${err.message.split('\n')[0]}`, { cause: err });
  }
}

if (kind === 'hook') {
  const name = rest[0] ?? '';
  try {
    if (!(name in hookEventsOf()))
      throw new Error(`unknown hook ${JSON.stringify(name)} (expected ${Object.keys(hookEventsOf()).join(', ')})`);
    // The thin client: the recall server answers when it runs, else the hook runs in this process.
    const entry = path.join(root, 'dist', 'bundle', 'client.mjs');
    await ensureBundle(entry);
    const { hookClient } = await import(pathToFileURL(entry).href);
    await hookClient(name);
  } catch (err) {
    breadcrumb(name || 'hook', err.message);
    process.stderr.write(`recall: ${err.message}\n`);
    const notice = startFailureNotice(name, err.message);
    const envelope = emptyEnvelope(name);
    const out = notice ? `${JSON.stringify({ ...JSON.parse(envelope), systemMessage: notice })}\n` : envelope;
    process.stdout.write(out, () => process.exit(0));
  }
} else if (kind === 'recall') {
  const entry = path.join(root, 'dist', 'bundle', 'client.mjs');
  try {
    await ensureBundle(entry);
  } catch (err) {
    process.stderr.write(`recall: ${err.message}\n`);
    process.exit(2);
  }
  // A plain `recall QUERY` goes to the recall server; anything else loads the CLI in this process.
  const { cliClient } = await import(pathToFileURL(entry).href);
  await cliClient(rest);
} else {
  process.stderr.write('usage: node scripts/launch.mjs hook <name> | recall [args...]\n');
  process.exit(2);
}
