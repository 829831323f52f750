/**
 * Secret scrubbing for anything a hook writes outside the agent's context (breadcrumbs, logs):
 * auth headers, bearer tokens, `token=…`/`password: …`-style pairs, and common key shapes.
 */
const PATTERNS: readonly [RegExp, string][] = [
  [/\b(authorization|x-api-key|api-key|x-auth-token)\s*[:=]\s*[^\s,;]+(\s+[^\s,;]+)?/gi, '$1: ***REDACTED***'],
  [/\bbearer\s+[A-Za-z0-9._~+/=-]+/gi, 'Bearer ***REDACTED***'],
  [/\b(token|api_key|apikey|password|passwd|secret|auth)(["']?\s*[:=]\s*["']?)[^\s"',;]{8,}/gi, '$1$2***REDACTED***'],
  [/\bsk-ant-[A-Za-z0-9_-]{8,}/g, '***REDACTED***'],
  [/\bsk-[A-Za-z0-9_-]{16,}/g, '***REDACTED***'],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, '***REDACTED***'],
  [/\bxox[abpr]-[A-Za-z0-9-]{10,}/g, '***REDACTED***'],
  [/\bAKIA[0-9A-Z]{16}\b/g, '***REDACTED***'],
];

export function scrub(text: string): string {
  let out = text;
  for (const [re, rep] of PATTERNS) out = out.replace(re, rep);
  return out;
}
