/**
 * Hostile review of the newer request patterns (operators/action/asked-work.ts, work-kinds.ts):
 * a second object, a job of its own, formatting, a change going out, a release or a freeze in a
 * name. Each must keep what it was added for and not read an unrelated prompt or name as the work.
 */
import { describe, it, expect } from '@jest/globals';
import { askedWork, nameWords, workOf } from '../../operators/action/asked-work.js';

const work = (prompt: string): string[] => [...askedWork(prompt)].sort();
const named = (name: string): string[] => [...workOf(nameWords(name), true)].sort();

describe('a second object of a request', () => {
  it('is an object, not the subject of a clause of its own nor a word before another noun', () => {
    expect(work('add a button to the settings page and the tests still pass')).toEqual([]);
    expect(work('fix the navbar, and the log in page looks off too')).toEqual([]);
    expect(work('add a banner to the checkout and the logging page')).toEqual([]);
  });

  it('is still read at the end of the request or before what it is for', () => {
    expect(work('add a nullable `reason` text column on bookings, and a test that cancelling stores it')).toEqual(['migration', 'test']);
    expect(work('add the column and some unit tests')).toEqual(['migration', 'test']);
  });
});

describe('a job of its own', () => {
  it("is not a job board's words", () => {
    for (const prompt of [
      'write a job description for the hiring page',
      'make a job board page',
      'add a new job title field to the user profile',
    ])
      expect([prompt, work(prompt)]).toEqual([prompt, []]);
  });

  it('is a job that does something', () => {
    expect(work('add a job to resend failed webhooks')).toEqual(['job']);
    expect(work('write a job which syncs stock')).toEqual(['job']);
  });
});

describe("the code's formatting", () => {
  it('is not the formatting of what the app shows', () => {
    expect(work('fix the formatting of the date in the invoice email')).toEqual([]);
    expect(work('fix the date formatting on the invoice')).toEqual([]);
  });

  it('is the formatting of code or files', () => {
    expect(work('fix the formatting')).toEqual(['lint']);
    expect(work('run prettier and fix the formatting of the changed files')).toEqual(['lint']);
    expect(work('fix the formatting in src/app.ts')).toEqual(['lint']);
  });
});

describe('a change going out', () => {
  it('is not mail or payments the app sends on a day', () => {
    expect(work('the digest emails should go out on Monday mornings')).toEqual([]);
    expect(work('will the reminders go out on time?')).toEqual([]);
    expect(work('the lights will go out on friday')).toEqual([]);
  });

  it('is a change that goes out', () => {
    expect(work('can the refactor go out on the 30th?')).toEqual(['deploy']);
  });
});

describe('a release or a freeze in a name', () => {
  it('is not pip freeze, Object.freeze or a released lock', () => {
    // (pip names dependency work: pip freeze writes the requirements.)
    expect(named('pip-freeze-requirements')).toEqual(['dependency']);
    expect(named('object-freeze-config')).toEqual([]);
    expect(named('lock-release-order')).toEqual([]);
    expect(named('merge-freeze')).toEqual(['deploy']);
  });
});
