/**
 * The hooks block of `recall status`: the harness plugins installed, each hooks file that runs recall,
 * and what is wrong with one: a wiring whose recall is gone (stale), or Codex hooks beside Codex's own
 * recall plugin (recall would run twice per prompt), each with the command that fixes it.
 */
import type { HookWiring } from '../hooks/install/index.js';

export function hookLines(r: { hooks: HookWiring[]; claudePlugin: boolean; codexPlugin: string | null }): string[] {
  const out: string[] = [];
  const wired = r.hooks.filter((h) => h.events.length > 0 || h.problem);
  if (wired.length === 0 && !r.claudePlugin && !r.codexPlugin)
    return ['hooks     not wired in any harness (recall hooks install --harness claude|codex|copilot)'];
  const plugins = [
    r.claudePlugin ? 'Claude Code plugin recall installed' : 'no Claude Code plugin',
    ...(r.codexPlugin ? [`${r.codexPlugin} installed`] : []),
  ];
  out.push(`hooks     ${plugins.join('; ')}`);
  for (const h of wired) {
    out.push(`          ${h.harness} (${h.scope}) ${h.file}: ${h.problem ?? h.events.join(', ')}`);
    const scope = h.scope === 'project' ? ' --scope project' : '';
    if (h.stale) out.push(`            stale: ${h.stale}; fix: recall hooks install --harness ${h.harness}${scope}`);
    if (h.harness === 'codex' && r.codexPlugin && h.events.length)
      out.push(`            runs recall a second time beside ${r.codexPlugin}; fix: recall hooks uninstall --harness codex${scope}`);
  }
  return out;
}
