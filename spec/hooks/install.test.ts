import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseToml } from 'smol-toml';
import { applyChanges, describeChanges, planInstall, targets, type InstallOptions } from '../../hooks/install/install.js';
import { HOOK_WIRING, claudeStyleHooks, hookCommand, isRecallHookCommand } from '../../hooks/install/harness-config.js';
import { launchPaths, recallEvents } from '../../hooks/install/wiring-status.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let dir = '';
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = '';
});

function opts(harness: InstallOptions['harness'], extra: Partial<InstallOptions> = {}): InstallOptions {
  dir ||= fs.mkdtempSync(path.join(os.tmpdir(), 'recall-install-'));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home, { recursive: true });
  return { harness, scope: 'user', mcp: false, skill: true, env: { HOME: home }, cwd: path.join(dir, 'project'), root: repo, ...extra };
}

const run = (o: InstallOptions, install = true): string => {
  const changes = planInstall(o, install);
  return describeChanges(changes, o, false, install, applyChanges(changes));
};
const readJson = (f: string): Record<string, any> => JSON.parse(fs.readFileSync(f, 'utf8'));

/** A settings file that already has the user's own hooks and other settings. */
const USER_SETTINGS = {
  model: 'opus',
  permissions: { allow: ['Bash(npm test:*)'] },
  hooks: {
    SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'echo mine', timeout: 5 }] }],
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/local/bin/guard' }] }],
    // An old recall hook pasted by hand from an earlier version, next to a hook of the user's.
    UserPromptSubmit: [
      {
        hooks: [
          { type: 'command', command: 'node /old/recall/dist/hooks/user-prompt-submit.js', timeout: 30 },
          { type: 'command', command: 'echo keep' },
        ],
      },
    ],
  },
};

describe('recall hooks install / uninstall', () => {
  it('claude: merges into settings.json with a backup, never drops other hooks, and round-trips', () => {
    const o = opts('claude');
    const file = targets(o).hooks;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(USER_SETTINGS, null, 2));

    const out = run(o);
    expect(out).toMatch(/updated .*settings\.json/);
    // The session-start and prompt hooks run node directly (no keeper), without the CA bundle.
    expect(out).toMatch(
      /\+ SessionStart: RECALL_EXTRA_CA_CERTS="\$NODE_EXTRA_CA_CERTS" NODE_EXTRA_CA_CERTS= node \S*scripts\/launch\.mjs hook session-start \(timeout 30 s\)/,
    );
    expect(out).toMatch(/- UserPromptSubmit: 1 earlier recall hook/);
    expect(out).toMatch(/backup: .*settings\.json\.recall-backup-/);
    const s = readJson(file);
    expect(s['model']).toBe('opus');
    expect(s['permissions']).toEqual(USER_SETTINGS.permissions);
    // The user's own PreToolUse group stays first; recall's tool-call hook is added after it, for
    // the tools that act (read-only tools start no process).
    expect(s['hooks']['PreToolUse'].slice(0, USER_SETTINGS.hooks.PreToolUse.length)).toEqual(USER_SETTINGS.hooks.PreToolUse);
    expect(s['hooks']['PreToolUse'].at(-1)).toMatchObject({ matcher: 'Bash|Edit|Write|MultiEdit|NotebookEdit|apply_patch' });
    expect(out).toMatch(/\+ PreToolUse: sh .*scripts\/hook\.sh .*scripts\/launch\.mjs hook pre-tool-use \(timeout 10 s\)/);
    expect(s['hooks']['SessionStart'][0]).toEqual(USER_SETTINGS.hooks.SessionStart[0]);
    // The old recall command is gone, the user's neighbour in the same group stays.
    expect(JSON.stringify(s['hooks']['UserPromptSubmit'])).not.toContain('/old/recall/');
    expect(JSON.stringify(s['hooks']['UserPromptSubmit'])).toContain('echo keep');
    for (const h of HOOK_WIRING) {
      const ours = (s['hooks'][h.event] as { hooks: { command: string; timeout: number }[] }[])
        .flatMap((g) => g.hooks)
        .filter((x) => isRecallHookCommand(x.command));
      expect(ours).toHaveLength(1);
      expect(ours[0]!.timeout).toBe(h.timeoutSec);
    }
    // Not `hooks.hooks`: the block sits at the top level of the settings.
    expect(s['hooks']['hooks']).toBeUndefined();
    expect(fs.existsSync(path.join(targets(o).skillDir, 'SKILL.md'))).toBe(true);

    // Idempotent: a second install changes nothing and makes no backup.
    const backups = fs.readdirSync(path.dirname(file)).filter((f) => f.includes('recall-backup')).length;
    expect(run(o)).toMatch(/^nothing to change: recall is already installed there/);
    expect(fs.readdirSync(path.dirname(file)).filter((f) => f.includes('recall-backup')).length).toBe(backups);

    // Uninstall: exactly the user's settings again (minus the old recall hook that install replaced).
    run(o, false);
    const after = readJson(file);
    const expected = JSON.parse(JSON.stringify(USER_SETTINGS));
    expected.hooks.UserPromptSubmit = [{ hooks: [{ type: 'command', command: 'echo keep' }] }];
    expect(after).toEqual(expected);
    expect(fs.existsSync(targets(o).skillDir)).toBe(false);
  });

  it('--dry-run prints the change and writes nothing', () => {
    const o = opts('codex');
    const changes = planInstall(o, true);
    const out = describeChanges(changes, o, true, true);
    expect(out).toMatch(/would change .*\.codex\/hooks\.json/);
    expect(out).toContain('env REFLECT_HARNESS=codex sh ');
    expect(out).toContain('env REFLECT_HARNESS=codex node ');
    expect(fs.existsSync(targets(o).hooks)).toBe(false);
  });

  it('codex: writes ~/.codex/hooks.json (or $CODEX_HOME) and registers the MCP server in config.toml without losing comments', () => {
    const o = opts('codex', { mcp: true });
    const t = targets(o);
    fs.mkdirSync(path.dirname(t.mcp), { recursive: true });
    const toml = '# my settings\nmodel = "o4"\n\n[mcp_servers.other]\ncommand = "other-server"  # keep me\n';
    fs.writeFileSync(t.mcp, toml);
    const out = run(o);
    expect(out).toContain('approve the new hooks');
    const hooks = readJson(t.hooks);
    expect(hooks).toEqual(claudeStyleHooks(repo, 'codex'));
    expect(hooks.hooks['PreToolUse']).toEqual([
      {
        matcher: 'Bash|Edit|Write|MultiEdit|NotebookEdit|apply_patch',
        hooks: [
          {
            type: 'command',
            command: expect.stringMatching(/^env REFLECT_HARNESS=codex sh .*hook\.sh .*launch\.mjs hook pre-tool-use$/),
            timeout: 10,
          },
        ],
      },
    ]);
    const text = fs.readFileSync(t.mcp, 'utf8');
    expect(text.startsWith(toml)).toBe(true);
    const parsed = parseToml(text) as { mcp_servers: Record<string, { command: string; args: string[] }> };
    expect(parsed.mcp_servers['other']!.command).toBe('other-server');
    expect(parsed.mcp_servers['recall']!.args.slice(-2)).toEqual(['recall', 'mcp']);
    expect(run(o)).toMatch(/^nothing to change/);
    run(o, false);
    expect(fs.readFileSync(t.mcp, 'utf8').trimEnd()).toBe(toml.trimEnd());
    expect(readJson(t.hooks)).toEqual({});

    const custom = opts('codex', { env: { HOME: path.join(dir, 'home'), CODEX_HOME: path.join(dir, 'cx') } });
    expect(targets(custom).hooks).toBe(path.join(dir, 'cx', 'hooks.json'));
  });

  it('copilot: a per-user hook file on userPromptTransformed, removed again by uninstall', () => {
    const o = opts('copilot', { mcp: true });
    const t = targets(o);
    expect(t.hooks).toBe(path.join(dir, 'home', '.copilot', 'hooks', 'recall.json'));
    fs.mkdirSync(path.dirname(t.mcp), { recursive: true });
    fs.writeFileSync(t.mcp, JSON.stringify({ mcpServers: { github: { type: 'http', url: 'https://example.invalid/mcp' } } }));
    run(o);
    const h = readJson(t.hooks);
    expect(h['version']).toBe(1);
    expect(Object.keys(h['hooks']).sort()).toEqual(['preToolUse', 'sessionStart', 'subagentStart', 'userPromptTransformed']);
    expect(h['hooks']['preToolUse'][0]).toMatchObject({
      env: { REFLECT_HARNESS: 'copilot' },
      timeoutSec: 10,
      matcher: 'bash|powershell|edit|create|apply_patch',
    });
    expect(h['hooks']['userPromptTransformed'][0]).toMatchObject({ type: 'command', env: { REFLECT_HARNESS: 'copilot' }, timeoutSec: 30 });
    expect(readJson(t.mcp)['mcpServers']['github']).toBeDefined();
    expect(readJson(t.mcp)['mcpServers']['recall']).toMatchObject({ type: 'local', command: 'node', tools: ['*'] });
    run(o, false);
    expect(fs.existsSync(t.hooks)).toBe(false);
    expect(readJson(t.mcp)).toEqual({ mcpServers: { github: { type: 'http', url: 'https://example.invalid/mcp' } } });
  });

  it.each(['claude', 'codex', 'copilot'] as const)(
    '%s: an install whose hooks all start scripts/hook.sh (before the keeper column) is recognised and upgraded',
    (harness) => {
      const o = opts(harness);
      const file = targets(o).hooks;
      // The file that install wrote: every hook through the keeper.
      const keeperForm = (name: string): string =>
        `${harness === 'codex' ? 'env REFLECT_HARNESS=codex ' : ''}sh ${repo}/scripts/hook.sh ${repo}/scripts/launch.mjs hook ${name}`;
      const old =
        harness === 'copilot'
          ? {
              version: 1,
              hooks: Object.fromEntries(
                HOOK_WIRING.map((h) => [
                  h.copilotEvent,
                  [{ type: 'command', bash: keeperForm(h.name), env: { REFLECT_HARNESS: 'copilot' } }],
                ]),
              ),
            }
          : {
              hooks: Object.fromEntries(HOOK_WIRING.map((h) => [h.event, [{ hooks: [{ type: 'command', command: keeperForm(h.name) }] }]])),
            };
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify(old, null, 2));
      const events = HOOK_WIRING.map((h) => (harness === 'copilot' ? h.copilotEvent : h.event));
      expect(recallEvents(old).sort()).toEqual([...events].sort());
      expect(launchPaths(old)).toEqual([path.join(repo, 'scripts', 'launch.mjs')]);

      run(o);
      const now = readJson(file);
      expect(recallEvents(now).sort()).toEqual([...events].sort());
      expect(launchPaths(now)).toEqual([path.join(repo, 'scripts', 'launch.mjs')]);
      for (const h of HOOK_WIRING) {
        const entries = now['hooks'][harness === 'copilot' ? h.copilotEvent : h.event] as Record<string, any>[];
        const commands = entries.flatMap((e) =>
          harness === 'copilot' ? [e['bash']] : (e['hooks'] as { command: string }[]).map((x) => x.command),
        );
        // One recall command per event, in the form the table says.
        expect(commands).toEqual([hookCommand(h.name, repo, harness)]);
        expect(commands[0]!.includes('hook.sh')).toBe(h.keeper);
      }
    },
  );

  it.each(['claude', 'codex'] as const)('%s: the launch.mjs of commands whose folder has a quote in its name', (harness) => {
    const root = "/home/o'brien/my recall";
    expect(launchPaths(claudeStyleHooks(root, harness))).toEqual([`${root}/scripts/launch.mjs`]);
  });

  it('refuses to touch a settings file it cannot parse, or a foreign skill', () => {
    const o = opts('claude');
    const file = targets(o).hooks;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{ "hooks": { oops');
    expect(() => planInstall(o)).toThrow(/settings\.json is not valid JSON .*nothing was changed/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{ "hooks": { oops');
    fs.writeFileSync(file, '{}');
    const skill = path.join(targets(o).skillDir, 'SKILL.md');
    fs.mkdirSync(path.dirname(skill), { recursive: true });
    fs.writeFileSync(skill, '---\nname: something-else\n---\n');
    expect(() => planInstall(o)).toThrow(/not recall's skill/);
  });

  it("the installed skill runs this install's bin/recall (no PATH needed)", () => {
    const o = opts('copilot');
    run(o);
    const text = fs.readFileSync(path.join(targets(o).skillDir, 'SKILL.md'), 'utf8');
    expect(text).toContain(`${path.join(repo, 'bin', 'recall')} "postgres connection pool exhausted in pytest"`);
    expect(text).not.toMatch(/^recall /m);
  });
});

describe('the plugin hooks.json', () => {
  it('is the wiring table with ${CLAUDE_PLUGIN_ROOT} (one place for commands and timeouts)', () => {
    const file = readJson(path.join(repo, 'hooks', 'hooks.json'));
    expect(file).toEqual(claudeStyleHooks('${CLAUDE_PLUGIN_ROOT}', 'claude', true));
  });

  it('is not referenced again from plugin.json (Claude Code loads hooks/hooks.json by itself)', () => {
    expect(readJson(path.join(repo, '.claude-plugin', 'plugin.json'))['hooks']).toBeUndefined();
  });
});
