/** The recall skill as installed for a harness, its commands pointing at a recall that runs there. */
import fs from 'node:fs';
import path from 'node:path';

/**
 * The skill's SKILL.md with `recall` commands pointing at this install (the plugin puts bin/ on
 * PATH; others do not): its bin/recall, or with `commandRoot` (the stable launcher, which outlives
 * the install's folder) `node <commandRoot>/scripts/launch.mjs recall`.
 */
export function skillText(root: string, onPath: boolean, commandRoot: string = root): string {
  const text = fs.readFileSync(path.join(root, 'skills', 'recall', 'SKILL.md'), 'utf8');
  if (onPath) return text;
  const quote = (p: string): string => (/^[A-Za-z0-9_./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`);
  const command =
    commandRoot === root
      ? quote(path.join(root, 'bin', 'recall'))
      : `node ${quote(path.join(commandRoot, 'scripts', 'launch.mjs'))} recall`;
  // Inside code blocks and inline code, a command that starts with the word `recall`.
  return text.replace(/(^|`|\n)recall(?= )/g, (_m, lead: string) => `${lead}${command}`);
}
