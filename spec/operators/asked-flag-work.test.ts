/**
 * Feature-flag work read in a prompt (operators/action/flag-requests.ts, work-kinds.ts): by name,
 * and by what flags do (behind a flag, a dark launch, some users first, a gradual rollout, a flag's
 * name turned on for some users); not a command's option, a column or an emoji called a flag, or
 * flagging an account. A memory named for flags or for a flag service is named for the work.
 */
import { describe, it, expect } from '@jest/globals';
import { askedWork, nameWords, workOf } from '../../operators/action/asked-work.js';

const flag = (prompt: string): boolean => askedWork(prompt).has('flag');

describe('feature-flag work in a prompt', () => {
  it('reads a flag asked for by name or by what it does', () => {
    for (const p of [
      'add a feature flag for the new checkout',
      'remove the launchdarkly flag for bulk refunds, it has been at 100% for a month',
      "let's put the redesigned onboarding behind a flag",
      'gate it behind a feature toggle for now',
      'product wants the new search dark-launched next sprint',
      'new bulk export page; marketing wants only a handful of customers to see it for the first month',
      'ship the new editor to the beta group first',
      'roll it out to 10% of users and watch the error rate',
      'switch new_invoice_layout on in prod for customers 311 and 4120',
      'enable `checkout_v2` for 5% of buyers',
    ])
      expect([p, flag(p)]).toEqual([p, true]);
  });

  it("reads no flag in a command's option, a column, an emoji, an account flagged, a setting turned on for a server", () => {
    for (const p of [
      'add a --dry-run flag to the cleanup script',
      'add a `--region` flag to the cli so users can pick eu or us',
      'the country flag emoji in the address form renders as two letters on windows',
      'orders have a `flags` jsonb column from fraud review, add a scope for flagged ones',
      'flag the user for manual review when the card is declined twice',
      'turn on log_min_duration_statement in production',
      'fix the typo in the FeatureFlags doc comment',
      "don't put it behind a flag, it's a bug fix",
      'only a few tests fail at first, then all of them',
      'enable max_connections to 200 on the replica',
      // From review: reports of who met a bug, other flags, infrastructure rollouts, settings of a server, denials.
      'only a few users reported this at first, can you look at the crash log',
      'just some users hit this bug initially',
      'the issue happened to the beta users first',
      'put the settings behind the debug flag in the CLI',
      'wrap the debug logs behind a verbose flag',
      'roll it out to half the pods',
      'ramp up to 10% cpu',
      'enable pg_stat_statements for the team database',
      'enable log_statement for the admin role',
      'this should not be behind a flag',
      "it's no longer behind a flag, ship it to everyone",
      'the verbose logs are hidden behind the debug toggle in the header',
    ])
      expect([p, flag(p)]).toEqual([p, false]);
  });

  it('names a memory for flags or a flag service, not for command-line flags', () => {
    expect([...workOf(nameWords('feature-flag-code'))]).toEqual(['flag']);
    expect([...workOf(nameWords('flipper-toggles'), true)]).toEqual(['flag']);
    expect([...workOf(nameWords('LaunchDarkly cleanup'), true)]).toEqual(['flag']);
    expect([...workOf(nameWords('cli-flags-style'))]).toEqual([]);
    expect([...workOf(nameWords('compiler-flags'))]).toEqual([]);
    for (const name of [
      'rustc-flags',
      'build-flags',
      'docker-build-flags',
      'dark-mode-toggles',
      'flags-column-bitmask',
      'fraud-flag-review',
    ])
      expect([name, [...workOf(nameWords(name), true)]]).toEqual([name, []]);
  });
});
