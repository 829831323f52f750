/**
 * The hook table is the one list of hooks: the handlers cover exactly the table, and the Copilot
 * events are ones whose answers Copilot reads.
 */
import { describe, it, expect } from '@jest/globals';
import { HOOK_NAMES, HOOK_TABLE, hookRow, isHookName } from '../../hooks/hook-table.js';
import { HOOKS } from '../../hooks/registry.js';

describe('hook table', () => {
  it('has a handler for every hook and none besides, each carrying its row', () => {
    expect(Object.keys(HOOKS).sort()).toEqual([...HOOK_NAMES].sort());
    for (const name of HOOK_NAMES) {
      const row = hookRow(name);
      expect(HOOKS[name]).toMatchObject({ name, event: row.event, timeoutEnv: row.timeoutEnv, defaultTimeoutSec: row.defaultTimeoutSec });
    }
  });

  it('keeps every own deadline well inside the timeout the harness is told', () => {
    for (const h of HOOK_TABLE) expect(h.timeoutSec).toBeGreaterThanOrEqual(h.defaultTimeoutSec * 1.5);
  });

  it('uses Copilot events whose answers Copilot reads (not userPromptSubmitted, whose output it ignores)', () => {
    expect(HOOK_TABLE.map((h) => h.copilotEvent)).toEqual(['sessionStart', 'userPromptTransformed', 'subagentStart', 'preToolUse']);
  });

  it('recognises hook names and nothing else', () => {
    expect(HOOK_NAMES.every(isHookName)).toBe(true);
    for (const bad of ['', 'SessionStart', 'session_start', 'hooks', null, 3]) expect(isHookName(bad)).toBe(false);
  });
});
