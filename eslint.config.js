// Lint rules: typescript-eslint's recommended and type-checked sets (floating or misused promises,
// awaits of non-promises, needless assertions, any leaking out of untyped values), the RxJS rules of
// eslint-plugin-rxjs-x, and the size limits that keep every file and function readable in one sitting.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import rxjsX from 'eslint-plugin-rxjs-x';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'spec/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeCheckedOnly],
    // One program for the whole tree: the specs are only in tsconfig.spec.json, so projectService
    // (nearest tsconfig.json per file) would need a second program for them and took longer.
    languageOptions: { parserOptions: { project: './tsconfig.spec.json', tsconfigRootDir: import.meta.dirname } },
    plugins: { 'rxjs-x': rxjsX },
    rules: {
      ...rxjsX.configs.recommended.rules,
      // Recall strips terminal control characters from note text on purpose.
      'no-control-regex': 'off',
      // Every find was String() of an input value (argv, parsed JSON, an error's code) that `??` or a
      // truthiness test narrowed from unknown to {}: coercing it to text is what the code means.
      '@typescript-eslint/no-base-to-string': 'off',
      // `async` without `await` is deliberate here: it makes a synchronous throw a rejection where the
      // contract is a Promise (MCP tool handlers, the SDK's Transport, the stage functions).
      '@typescript-eslint/require-await': 'off',
      // A caught value handed on as it is (reject(err) in a catch) is not a new non-Error reason.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      // Every line counts (comments and blank lines too): a file or function is read whole.
      'max-lines': ['error', { max: 300 }],
      'max-lines-per-function': ['error', { max: 60 }],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    rules: { 'no-control-regex': 'off', '@typescript-eslint/no-require-imports': 'off' },
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        performance: 'readonly',
        Buffer: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
      },
    },
  },
  {
    // Specs are long lists of cases: a describe block is not a function to split.
    files: ['spec/**/*.ts'],
    rules: { 'max-lines-per-function': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Specs and the harness checks read other programs' JSON output as `any` on purpose: the
    // expectation (or check) that reads a field is the test of its shape, and fails when it is missing.
    files: ['spec/**/*.ts', 'scripts/verify/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
