/**
 * Work a prompt asks for in words the first kinds did not read (operators/action/asked-work.ts): a
 * check before a change is done, credentials the prompt handles, tests by what they cover, jobs moved
 * to the background, the code's style, a deploy onto prod, a second object of one request; a memory
 * named for a tool of the work (a formatter too); a request after an interjection.
 */
import { describe, it, expect } from '@jest/globals';
import { askedSteps } from '../../operators/action/git-steps.js';
import { askedWork, nameWords, workOf } from '../../operators/action/asked-work.js';

const steps = (prompt: string): string[] => [...askedSteps(prompt)].sort();

describe('askedWork: checks, credentials, tests by what they cover, work named by its framework', () => {
  const work = (prompt: string): string[] => [...askedWork(prompt)].sort();

  it('reads a check before calling a change done', () => {
    expect(work('make sure this is all green before I push')).toEqual(['verify']);
    expect(work('run the checks and if everything passes commit it')).toEqual(['verify']);
    expect(work('get it green')).toEqual(['verify']);
    expect(work('the checks on main were green yesterday')).toEqual([]);
  });

  it('reads credentials the prompt handles, not a token of another kind', () => {
    expect(work('hooking up Twilio, I have the account SID and auth token, where do they go?')).toEqual(['secret']);
    expect(work('the invite link token expires after a day, make it a week')).toEqual([]);
  });

  it('reads a credential by the name of the variable that holds it, not a key of another kind', () => {
    expect(work('the api on staging needs STRIPE_WEBHOOK_SECRET, wire it through so the pods get it')).toEqual(['secret']);
    expect(work("what's STRIPE_SECRET set to in my .env?")).toEqual(['secret']);
    expect(work('set HEROKU_API_KEY in the deploy step')).toEqual(['secret']);
    expect(work('NEXT_PUBLIC_ALGOLIA_SEARCH_KEY still has the old value on preview')).toEqual([]);
    expect(work('rename CACHE_KEY to CACHE_PREFIX')).toEqual([]);
    expect(work('add a db_password column to the legacy import table')).not.toContain('secret');
    expect(work('set API_KEY and AWS_ACCESS_KEY_ID in .env')).toEqual(['secret']);
    expect(work('why is $GITHUB_TOKEN empty in the job')).toEqual(['secret']);
    // A limit, a kind of token or a flow named in capitals is no credential.
    for (const p of ['bump OPENAI_MAX_TOKENS to 4096', 'PAD_TOKEN and EOS_TOKEN are swapped', 'dispatch RESET_PASSWORD after submit'])
      expect(work(p)).toEqual([]);
    expect(work('the NEXT_PAGE_TOKEN from the list call is never sent')).toEqual([]);
  });

  it('reads tests asked for by what they cover, or as the next step', () => {
    expect(work('cover the unassign logic in Dispatch with tests, it has none')).toEqual(['test']);
    expect(work('now tests for that')).toEqual(['test']);
    expect(work('the tests for that module are flaky')).toEqual([]);
    expect(work('move the welcome email to the background')).toEqual(['job']);
  });

  it("names a memory for its work's tool (test framework, linter, job library), not a learning's title", () => {
    expect([...workOf(nameWords('pytest-style'), true)]).toEqual(['test']);
    expect([...workOf(nameWords('credo-strict'), true)]).toEqual(['lint']);
    expect([...workOf(nameWords('oban-worker-conventions'), true)]).toEqual(['job']);
    // A learning's title names the tool where a problem happened, not a rule about the work.
    expect([...workOf(nameWords('Fix postgres pool exhaustion in pytest with rollback fixtures'))]).toEqual([]);
    expect([...workOf(nameWords('run-mix-precommit'))]).toEqual(['verify']);
    expect([...workOf(nameWords('secrets-handling'))]).toEqual(['secret']);
  });

  it('reads a code span between the verb and the work, and a second object of the same request', () => {
    expect(work('add a nullable `cancellation_reason` column on bookings')).toEqual(['migration']);
    // A column of the files a job writes is no database's.
    expect(work('add a `source_region` column, filled from the region setting, to the parquet files it writes')).toEqual([]);
    expect(work('add a nullable `reason` text column on bookings, and a test that cancelling stores it')).toEqual(['migration', 'test']);
    expect(work('fix the bug and the login page')).toEqual([]);
    expect(work('the column and the tests were there already')).toEqual([]);
  });

  it("reads the code's style as lint work, a formatter as its tool, and getting a change onto prod as a deploy", () => {
    expect(work('fix the code style')).toEqual(['lint']);
    expect([...workOf(nameWords('Format with pint --dirty'), true)]).toEqual(['lint']);
    expect([...workOf(nameWords('pest-conventions'), true)]).toEqual(['test']);
    expect(work('the hotfix is merged to main. get it onto prod asap')).toEqual(['deploy']);
    expect(work('the code style guide is in the wiki')).toEqual([]);
  });

  it('reads going live as a deploy, and a job of its own as a queued job, not a CI or cron one', () => {
    expect(work('can the new dunning emails go live on the 17th?')).toEqual(['deploy']);
    expect(work("it won't go live before friday")).toEqual([]);
    expect(work("write a job that builds each clinic's yearly invoice archive")).toEqual(['job']);
    expect(work('create a new cleanup job')).toEqual(['job']);
    expect(work('add a nightly job to the workflow')).toEqual([]);
    expect(work('add a CI job that runs the linter')).toEqual(['ci']);
    expect(work('the job failed again')).toEqual([]);
  });

  it('reads a package pulled in by name, pods by their count, a rollout asked done, a column by its SQL type', () => {
    expect(work('pull in resilience4j for the retries in the bank client')).toEqual(['dependency']);
    expect(work('pull in the latest main first')).toEqual([]);
    expect(work('ops are complaining. bump it to 6 pods')).toEqual(['deploy']);
    expect(work('set the heap flag in the template and get that rolled out to staging')).toEqual(['deploy']);
    expect(work('add a nullable settled_at timestamptz to payouts')).toEqual(['migration']);
    expect(work('add a created date to the page')).toEqual([]);
    expect(work('add an optional boolean to the props')).toEqual([]);
  });

  it("reads a package added to an app by name, an app's version set, and names a package manager for dependencies", () => {
    expect(work('add date-fns to the desktop app, I want formatDistanceToNow')).toEqual(['dependency']);
    expect(work('add zod to the api package')).toEqual(['dependency']);
    expect(work('add validation to the api package')).toEqual([]);
    expect(work('add rate-limiting to the app')).toEqual([]);
    expect(work('set the app version to 1.11.0 so I can test the updater')).toEqual(['version']);
    expect(work('fix the version check in the updater')).toEqual([]);
    expect([...workOf(nameWords('Use pnpm, never npm or yarn'), true)]).toEqual(['dependency']);
    expect([...workOf(nameWords('no-manual-version-bumps'))]).toEqual(['version']);
    expect([...workOf(nameWords('api-versioning'))]).toEqual([]);
  });

  it('reads whether a change can go out as a deploy, and names a release or a freeze for it', () => {
    expect(work('can the fct_invoices refactor go out on the 30th or does it have to wait?')).toEqual(['deploy']);
    expect(work('the empty-trash fix really should go out with 5.0')).toEqual(['deploy']);
    expect(work('the lights go out at 9')).toEqual([]);
    expect([...workOf(nameWords('close-freeze'))]).toEqual(['deploy']);
    expect([...workOf(nameWords('release-5-0-freeze'))]).toEqual(['deploy']);
    expect([...workOf(nameWords('release-notes-format'))]).toEqual([]);
  });

  it('reads a git step after an interjection that opens the turn', () => {
    expect(steps('ok commit that')).toEqual(['commit']);
    expect(steps('thanks, push it')).toEqual(['push']);
  });
});

describe('request verbs typed with two letters swapped', () => {
  it('read as the verb ("wrtie tests", "comimt it"); a real word one letter away stays itself', () => {
    expect([...askedWork('wrtie tests for ShareStore.Revoke')]).toEqual(['test']);
    expect(steps('comimt it')).toEqual(['commit']);
    expect([...askedWork('I wrote tests for it yesterday')]).toEqual([]);
    expect(steps('the branch was pushed')).toEqual([]);
  });
});
