/**
 * The fast path of `recall` takes any first word that is not a command as a query, so its list of
 * command words must name every command module (and its aliases) and nothing else.
 */
import { describe, it, expect } from '@jest/globals';
import { COMMAND_WORDS } from '../../cli/options.js';
import { commandModules } from '../../cli/parser.js';

describe('command words', () => {
  it('are exactly the commands yargs registers, their aliases, and the built-in words', () => {
    const io = { argv: [], env: {}, cwd: '/', stdout: () => undefined, stderr: () => undefined, isTty: false };
    const words = commandModules(io, { code: 0 }).flatMap((m) => {
      const first = String(m.command).split(' ')[0]!;
      return first === '$0' ? [] : [first, ...((m.aliases as string[] | undefined) ?? [])];
    });
    expect([...COMMAND_WORDS].sort()).toEqual([...words, 'help', 'version', 'completion'].sort());
  });
});
