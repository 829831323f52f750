// The hooks as the plain-JavaScript scripts (bundle, launcher) see them, read from hooks/hooks.json:
// that file is written from the hook table (hooks/hook-table.ts) and a spec keeps the two equal, so
// these scripts, which run before anything is built, never keep a list of their own.
import fs from 'node:fs';
import path from 'node:path';

/** Hook name → its Claude Code / Codex event, e.g. 'session-start' → 'SessionStart'. */
export function hookEvents(root) {
  const file = JSON.parse(fs.readFileSync(path.join(root, 'hooks', 'hooks.json'), 'utf8'));
  const pairs = Object.entries(file.hooks).flatMap(([event, groups]) =>
    groups.flatMap((g) => g.hooks.map((h) => [/ hook ([a-z-]+)\s*$/.exec(h.command)?.[1], event])),
  );
  return Object.fromEntries(pairs.filter(([name]) => name));
}
