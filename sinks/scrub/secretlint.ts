/**
 * secretlint's recommended rule preset (@secretlint/secretlint-rule-preset-recommend, MIT, from the
 * npm registry), run synchronously.
 *
 * secretlint's own engine (@secretlint/core) is asynchronous, but recall scrubs on the hook path,
 * where every write is synchronous. A secretlint rule is plain code behind a small public API:
 * `create(context, options)` returns handlers, and its `file(source)` handler calls
 * `context.report({ message, range })` for each secret it finds. Every scanner in the preset does
 * that synchronously for text, so this runner creates each rule with a context that only collects
 * the reported ranges, and calls `file()` on the text.
 *
 * Left out of the preset:
 * - secretlint-rule-filter-comments: it lets a `secretlint-disable` comment in the text switch
 *   reporting off, which a pasted prompt must not be able to do;
 * - secretlint-rule-gcp: it only judges service-account files by path and extension (`.json`,
 *   `.p12`, the latter asynchronously); for a prompt it never reports anything.
 */
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretRange } from './detect.js';

/** The part of secretlint's rule API a scanner uses (see the package's rules). */
interface SecretlintSource {
  content: string;
  filePath?: string;
  ext: string;
  contentType: 'text';
}
interface SecretlintContext {
  report(d: { message: string; range: readonly [number, number] }): void;
  createTranslator(messages: unknown): (...args: unknown[]) => string;
  ignore(d: unknown): void;
}
interface SecretlintRule {
  meta: { id: string; type?: string };
  create(context: SecretlintContext, options: Record<string, unknown>): { file?(source: SecretlintSource): unknown };
}

const SKIPPED = new Set(['@secretlint/secretlint-rule-filter-comments', '@secretlint/secretlint-rule-gcp']);

/**
 * Options other than the defaults. The AWS rule scans for access key ids (`AKIA…`, `ASIA…`) only
 * when asked: an id alone is not a credential in a repository, but in a log it names the account
 * and goes with the secret key pasted next to it.
 */
const OPTIONS: Record<string, Record<string, unknown>> = {
  '@secretlint/secretlint-rule-aws': { enableIDScanRule: true },
};

export const SECRETLINT_RULES: readonly SecretlintRule[] = (recommended as unknown as { rules: SecretlintRule[] }).rules.filter(
  (r) => r.meta.type === 'scanner' && !SKIPPED.has(r.meta.id),
);

/**
 * Where a rule's reported range is wider (or misplaced) compared with the secret itself, the secret's
 * position inside it, so the words around it stay readable in a log:
 * - the URL rules report the whole URL; the password between `user:` and `@` is the secret (the
 *   user name and host are kept, as recall's own URL rule does);
 * - the private key rule reports the whole PEM block; the body between header and END line is the
 *   secret (the header is kept, so a log says a key was pasted);
 * - the AWS rule reports a secret access key at the start of `AWS_SECRET_ACCESS_KEY=…` with the key's
 *   length (its range starts at the name), so the key is looked for from there.
 * When the secret is not found where expected, the reported range is kept as it is.
 */
const NARROW: Record<string, { re: RegExp; reach: number }> = {
  '@secretlint/secretlint-rule-basicauth': { re: /:\/\/[^:/\s@]{1,256}:([^@/\s]{1,256})@/d, reach: 0 },
  '@secretlint/secretlint-rule-database-connection-string': { re: /:\/\/[^:/\s@]{1,100}:([^@/\s]{1,200})@/d, reach: 0 },
  // The private key rule reports the whole block, header and END line included: the key is what
  // lies between them (recall's own PEM rule in detect.ts also takes blocks without an END line).
  '@secretlint/secretlint-rule-privatekey': {
    re: /^-{3,5} ?BEGIN [^\n]*?PRIVATE KEY[^\n]*?-{3,5}([\s\S]*?)(?:-{3,5} ?END\b|$)/d,
    reach: 0,
  },
  '@secretlint/secretlint-rule-aws': {
    re: /^["']?(?:AWS|aws|Aws)?_?(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)_?(?:KEY|key|Key)["']?\s*(?::|=>|=)\s*["']?([A-Za-z0-9/+=]{40})/d,
    reach: 300,
  },
};

function narrowed(text: string, id: string, start: number, end: number): { start: number; end: number } {
  const n = NARROW[id];
  if (!n) return { start, end };
  const slice = text.slice(start, Math.max(end, start + n.reach));
  const g = n.re.exec(slice)?.indices?.[1];
  return g ? { start: start + g[0], end: start + g[1] } : { start, end };
}

const noMessages = (): ((...args: unknown[]) => string) => () => '';

/** Every range the preset's scanners report in `text`, pushed to `out` with the rule's id. */
export function secretlintRanges(text: string, out: SecretRange[]): void {
  const source: SecretlintSource = { content: text, ext: '', contentType: 'text' };
  let open = true; // a report after this function returned (an asynchronous rule) is dropped
  for (const rule of SECRETLINT_RULES) {
    const id = rule.meta.id;
    const context: SecretlintContext = {
      report: ({ range }) => {
        const [start, end] = range;
        if (open && end > start) out.push({ ...narrowed(text, id, start, end), rule: id });
      },
      createTranslator: noMessages, // messages quote the secret; recall needs the range only
      ignore: () => {},
    };
    // A rule is created per text, as secretlint does per file, so no state carries over.
    const result = rule.create(context, OPTIONS[id] ?? {}).file?.(source);
    // No scanner kept here answers asynchronously for text; should a newer one, its late reports
    // are dropped (the recall spec on the 14 secret shapes says whether coverage still holds).
    if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).catch(() => {});
  }
  open = false;
}
