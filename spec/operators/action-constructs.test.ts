/**
 * The module constructs an edit writes count in the words notes name them by: a named import from
 * `lodash` reaches the note "Named imports from CommonJS packages fail under NodeNext ESM", though
 * the code never says "named". The default import the note recommends does not, nor does a named
 * import from a package the note never names.
 */
import { describe, it, expect } from '@jest/globals';
import { constructsRecommended, constructsWritten } from '../../operators/action/constructs.js';
import { ids, kb } from '../helpers/action.js';

const ESM = [
  '---',
  'id: esm-cjs-interop',
  'title: "Named imports from CommonJS packages fail under NodeNext ESM"',
  'key_insight: "tsc type-checks named imports from CJS packages that Node then rejects at runtime."',
  'fix: "import _ from \'lodash\'; const { pick } = _; or switch to lodash-es."',
  '---',
  '',
  "The BFF crashed with `SyntaxError: Named export 'pick' not found. The requested module 'lodash' is a CommonJS module`.",
  '',
  '**How to apply:** When a TS project uses NodeNext and a named import from a CJS package fails, switch to the default import.',
].join('\n');
const idx = kb({ 'esm-cjs-interop.md': ESM });
const adds = (line: string): string[] =>
  ids(
    idx,
    'Edit',
    {
      file_path: '/home/dev/web/server/routes/reports.ts',
      old_string: 'import { Router } from "express";',
      new_string: `import { Router } from "express";\n${line}`,
    },
    '/home/dev/web',
  );

describe('module constructs an edit writes', () => {
  it('reach the note about that construct, with the package it names', () => {
    expect(adds('import { groupBy } from "lodash";')).toContain('esm-cjs-interop');
  });

  it('do not when the edit writes what the note recommends (the default import)', () => {
    expect(adds('import _ from "lodash";')).not.toContain('esm-cjs-interop');
  });

  it('do not alone: a named import from a package the note never names', () => {
    expect(adds('import { z } from "zod";')).not.toContain('esm-cjs-interop');
  });

  it('are read from the lines written, each form by its name', () => {
    expect(constructsWritten('import { a, b } from "x";')).toEqual([['named', 'import']]);
    expect(constructsWritten("import React, { useState } from 'react';")).toEqual([
      ['named', 'import'],
      ['default', 'import'],
    ]);
    expect(constructsWritten('import * as path from "node:path";')).toEqual([['namespace', 'import']]);
    expect(constructsWritten('const { nanoid } = await import("nanoid");')).toEqual([['dynamic', 'import']]);
    expect(constructsWritten('export default function Page() {}\nexport const x = 1;')).toEqual([
      ['default', 'export'],
      ['named', 'export'],
    ]);
    // Words in prose or a string are no construct, nor a type-only form (erased before it runs).
    expect(constructsWritten('// we import { things } from elsewhere\nconst s = "export default";')).toEqual([]);
    expect(constructsWritten('import type { Dictionary } from "lodash";\nexport type Id = string;\nexport interface X {}')).toEqual([]);
    expect(constructsWritten('import { type Dictionary, type List } from "lodash";')).toEqual([]);
    expect(constructsWritten('import { type Dictionary, groupBy } from "lodash";')).toEqual([['named', 'import']]);
  });

  it('read a construct the note recommends in words as followed, not one it warns of', () => {
    expect(constructsRecommended('Prefer named exports. Never use a namespace import; do not use default exports.')).toEqual([
      'named-export',
    ]);
    const style = kb({
      'named-exports.md': [
        '---',
        'id: named-exports',
        'title: "Prefer named exports in the ui package"',
        '---',
        '',
        'Default exports broke the barrel files of `ui`: prefer named exports.',
      ].join('\n'),
    });
    const exports = (line: string): string[] =>
      ids(style, 'Edit', { file_path: '/home/dev/web/ui/src/Button.tsx', old_string: '', new_string: line }, '/home/dev/web');
    expect(exports('export const Button = () => null;')).not.toContain('named-exports');
  });

  it('count only for a note about JavaScript modules', () => {
    const data = kb({
      'metabase.md': [
        '---',
        'id: metabase-export-cap',
        'title: "Metabase caps the default export at 1,048,575 rows"',
        '---',
        '',
        'The Metabase default export stops at the xlsx row limit; page through the API for more.',
      ].join('\n'),
    });
    const edit = {
      file_path: '/home/dev/web/src/components/MetabaseEmbed.tsx',
      old_string: '',
      new_string: 'export default function MetabaseEmbed() {}',
    };
    expect(ids(data, 'Edit', edit, '/home/dev/web')).not.toContain('metabase-export-cap');
  });

  it('read no recommendation from a symptom, a past habit or a negation anywhere in the sentence', () => {
    for (const t of [
      'Using named imports from a CommonJS package crashes at run time.',
      'Don’t use default exports.',
      'Do not, in any package, use default exports.',
      'We used to use default exports.',
    ])
      expect(constructsRecommended(t)).toEqual([]);
    expect(constructsRecommended('Default exports broke the barrel: prefer named exports. Always use named imports.')).toEqual([
      'named-export',
      'named-import',
    ]);
    // Nor a construct from a comment line.
    expect(constructsWritten('// later: import("./heavy")')).toEqual([]);
  });

  it('read a hostile text in linear time (a long run of line breaks)', () => {
    const started = process.hrtime.bigint();
    for (const sep of ['\u2028', '\n', '\r']) constructsWritten(sep.repeat(20_000));
    // Quadratic matching took seconds here; linear takes about a millisecond. 2 s leaves room for a loaded machine.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(2000);
  });
});
