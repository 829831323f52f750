/**
 * The action matcher's readings of a note's prose (operators/action/prose.ts, terms.ts): what it says
 * is retired, what it sets aside in a contrast, and the settings it names, as evidence for a call.
 */
import { describe, it, expect } from '@jest/globals';
import { matchAction } from '../../operators/action/index.js';
import { call, ids, kb } from '../helpers/action.js';

describe('what a note says in prose, as evidence for a tool call', () => {
  it('counts a thing a note says is retired, named by the call, as what the note is about', () => {
    const notes = kb({
      'documents/fly.md': `---
id: lrn-fly
title: "Deploy process: Fly.io machines via GitHub Actions"
key_insight: "Current deploys go to Fly.io machines from GitHub Actions on merge to main; Heroku is decommissioned."
---
Body.
`,
      'documents/sessions.md': `---
id: lrn-sessions
title: "Auth convention: server-side sessions"
key_insight: "The team standard is server-side sessions; JWTs are deprecated for first-party auth."
---
Body.
`,
      'documents/review-apps.md': `---
id: lrn-review-apps
title: "Review apps on Heroku"
key_insight: "Every PR gets a Heroku review app."
---
Body.
`,
    });
    // Pushing to the decommissioned platform: the note that retired it, not one that only mentions it.
    expect(ids(notes, 'Bash', { command: 'git push heroku hotfix/session-expiry:main' })).toEqual(['lrn-fly']);
    // A plural acronym is one word: "JWTs" retires `jwt`.
    expect(ids(notes, 'Write', { file_path: '/home/dev/shop/auth/tokens.py', content: 'import jwt\n' })).toEqual(['lrn-sessions']);
  });

  it('counts what a note sets aside in a contrast ("X, not Y"), by how much its word says', () => {
    const notes = kb({
      'documents/cascade.md': `---
id: lrn-cascade
title: "Gateway 504 cascade traced to upstream pool waits"
key_insight: "The 504s were queued waits on the redis pool — fix the pool, not the timeout."
---
Body.
`,
      'documents/routes.md': `---
id: lrn-routes
title: "Gateway routes"
key_insight: "Each gateway route has its own timeout and retry budget."
---
Body.
`,
    });
    // Words as common as "timeout": one shared word and the file's place are not enough alone.
    const edit = (text: string) =>
      matchAction(
        notes,
        call('Edit', { file_path: '/home/dev/shop/deploy/nginx/gateway.conf', old_string: 'proxy_read_timeout 30s;', new_string: text }),
        '/home/dev/shop',
        { info: () => 0.8 },
      ).map((m) => m.id);
    expect(edit('proxy_read_timeout 120s;')).toEqual(['lrn-cascade']);
    // The set-aside word alone, anywhere else, is one word shared, however it is counted.
    const elsewhere = call('Edit', {
      file_path: '/home/dev/shop/src/client.ts',
      old_string: '',
      new_string: 'await fetch(url, { timeout: 5000 });',
    });
    expect(matchAction(notes, elsewhere, '/home/dev/shop', { info: () => 0.8 })).toEqual([]);
  });

  it('reads a setting the call writes as the same one a note names, however each quotes or spells its key', () => {
    const notes = kb({
      'documents/cors.md': `---
id: lrn-cors
title: "CORS with credentials cannot use Access-Control-Allow-Origin: *"
key_insight: "Echo the exact origin from an allow-list with credentials."
---
Body.
`,
      'documents/s3.md': `---
id: lrn-s3-cors
title: "Presigned uploads need a CORS rule for the origin"
key_insight: "The bucket's CORS rule must allow the app origin and credentials."
---
Body.
`,
    });
    const edit = (text: string) =>
      matchAction(
        notes,
        call('Edit', { file_path: '/home/dev/shop/server/app.ts', old_string: 'app.use(cors());', new_string: text }),
        '/home/dev/shop',
        {
          info: () => 0.6,
        },
      ).map((m) => m.id);
    // The wildcard origin the title warns of, written as an option: that note, not the one sharing the words.
    expect(edit('app.use(cors({ origin: "*", credentials: true }));')).toEqual(['lrn-cors']);
    expect(edit('app.use(cors({ origin: allowList, credentials: true }));')).toEqual([]);
  });

  it('counts a package the call imports, named by a note, as a tool the code now uses, never enough alone', () => {
    const notes = kb({
      'documents/alembic.md': `---
id: lrn-alembic-lock
title: "Set lock_timeout in Alembic migrations"
key_insight: "An ALTER TABLE waiting for its lock queues every later query; set lock_timeout."
---
Body.
`,
      'documents/pytest.md': `---
id: lrn-pytest-pool
title: "pytest fixtures share one engine"
key_insight: "One session-scoped engine and a rolled-back transaction per test."
---
Body.
`,
    });
    const write = (file_path: string, content: string) =>
      matchAction(notes, call('Write', { file_path, content }), '/home/dev/shop', { info: () => 0.8 }).map((m) => m.id);
    // A new migration: the package the note is about, in the folder it names.
    expect(
      write('/home/dev/shop/migrations/versions/0042_add_fee.py', 'from alembic import op\n\nop.add_column("invoices", fee)\n'),
    ).toEqual(['lrn-alembic-lock']);
    // A unit test importing pytest is not about every pytest learning.
    expect(write('/home/dev/shop/tests/unit/test_slugify.py', 'import pytest\n\nfrom shop.slug import slugify\n')).toEqual([]);
  });
});
