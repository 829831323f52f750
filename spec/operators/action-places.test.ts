/**
 * The places a Claude Code memory's rule names (operators/action/triggers.ts): an edit under a
 * folder the rule paragraph names is the step the rule is about.
 */
import { describe, it, expect } from '@jest/globals';
import { ids, kb, memory } from '../helpers/action.js';

describe('the places a memory rule names', () => {
  const notes = kb({
    'documents/migrations.md': memory(
      'clickhouse-migration-rules',
      'ClickHouse migrations are append-only once merged',
      'Migrations in `migrations/clickhouse/` have run in prod once merged: never edit them, add a new file.\n\n**Why:** goose tracks versions, not file contents; see `docs/why/goose`.\n\n**How to apply:** Any ClickHouse schema change.',
    ),
    'documents/rust.md': `---
name: rust-tests-nextest
description: Run Rust tests with nextest
metadata:
  type: feedback
---
Tests in \`compactor/\` run with nextest; the image is built from \`compactor/Dockerfile\`.

**How to apply:** Whenever Rust tests need running.
`,
    'documents/story.md': `---
id: lrn-reports-pull
title: Reports pull failed under sudo
learning_type: bug-fix
---
The pull in \`internal/reports/sync\` failed as root.
`,
  });
  const edit = (file: string) => ids(notes, 'Edit', { file_path: `/home/dev/shop/${file}`, old_string: 'a', new_string: 'b' });

  it('gives a memory for an edit under a folder its rule names, two levels deep', () => {
    expect(edit('migrations/clickhouse/0057_usage_ttl.sql')).toEqual(['clickhouse-migration-rules']);
    expect(ids(notes, 'Write', { file_path: '/home/dev/shop/migrations/clickhouse/0058_x.sql', content: 'b' })).toEqual([
      'clickhouse-migration-rules',
    ]);
  });

  it("not a folder named after the rule (why it holds), a top folder, a file, or a learning's story", () => {
    expect(edit('docs/why/goose/notes.md')).toEqual([]);
    expect(edit('compactor/src/flush.rs')).toEqual([]);
    expect(edit('compactor/Dockerfile')).toEqual([]);
    expect(edit('internal/reports/sync/pull.go')).toEqual([]);
  });

  it('ends the rule at a plain Why: or How to apply: line as at a bold one', () => {
    const plain = kb({
      'documents/migrations.md': `---
name: clickhouse-migration-rules
description: ClickHouse migrations are append-only once merged
metadata:
  type: feedback
---
Migrations in \`migrations/clickhouse/\` have run in prod once merged: never edit them.

Why: goose tracks versions, not file contents; see \`docs/why/goose\`.

How to apply: any schema change; the runbook is in \`ops/runbooks/schema\`.
`,
    });
    const edit = (file: string) => ids(plain, 'Edit', { file_path: `/home/dev/shop/${file}`, old_string: 'a', new_string: 'b' });
    expect(edit('migrations/clickhouse/0057_usage_ttl.sql')).toEqual(['clickhouse-migration-rules']);
    expect(edit('docs/why/goose/notes.md')).toEqual([]);
  });
});

describe('a folder a memory rule names only to say where to run something', () => {
  const notes = kb({
    'documents/deps.md': `---
name: Dependency policy
description: pnpm only and uv for Python; ask before adding any new package
type: feedback
---
Python: \`uv add <pkg>\` inside \`apps/api\` or \`apps/worker\`, never \`pip install\` into the venv.

**How to apply:** Adding, removing or upgrading any dependency.
`,
  });

  it('is no place the rule applies to: its subject (name, description) names none of its folders', () => {
    expect(ids(notes, 'Edit', { file_path: '/home/dev/shop/apps/api/billing/service.py', old_string: 'a', new_string: 'b' })).toEqual([]);
  });
});
