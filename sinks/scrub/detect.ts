/**
 * Where the secrets are in a text: character ranges found by three detectors, merged.
 *
 * 1. secretlint's recommended rule preset (an npm dependency, run synchronously by secretlint.ts):
 *    maintained rules for provider keys and tokens (AWS, GitHub, GitLab, npm, Slack, OpenAI,
 *    Anthropic, Hugging Face, SendGrid, Shopify, private-key PEM blocks, database URLs, …).
 * 2. recall's own rules for what the preset lacks: shapes that are secrets but not tokens
 *    (credentials in a URL `postgres://user:pw@host`, a password said in words "the password is
 *    hunter2" or as a JSON/YAML member, an environment assignment named like a secret
 *    `PGPASSWORD=…`, auth headers / bearer tokens in pasted requests), JWTs, Stripe and Google API
 *    keys, and well-known key prefixes (`sk-ant-`, `ghp_`, `AKIA`, …) followed by a tail of any
 *    length (the preset wants each key's exact length, but a truncated or test key is still a key).
 * 3. An entropy rule for long random tokens no pattern names: 32+ characters of the base64/url
 *    alphabet mixing letters and digits, at 4.0 bits per character or more (random base64 of that
 *    length scores about 4.6-5; identifiers, words and paths well under 4).
 *
 * Pure and synchronous: a string in, ranges out.
 */
import { secretlintRanges } from './secretlint.js';

export interface SecretRange {
  start: number;
  end: number;
  /** Which rule found it (a secretlint rule id such as `@secretlint/secretlint-rule-github`, or `recall:…` for ours). */
  rule: string;
}

/** Shannon entropy of a string, in bits per character. */
export function shannonEntropy(s: string): number {
  if (!s) return 0;
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  const n = s.length;
  for (const c of counts.values()) {
    const p = c / n;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * Ours: shapes that are secrets but not tokens, so no token rule set covers them, and key prefixes
 * whatever the length after them. Group 1 is the secret.
 */
const WORD_RULES: readonly { rule: string; re: RegExp }[] = [
  // scheme://user:password@host (database URLs, git remotes, proxies). The user name is kept.
  { rule: 'recall:url-credentials', re: /\b[a-z][a-z0-9+.-]{1,30}:\/\/[^\s:/?#@]{0,100}:([^\s/?#@]{1,200})@/dgi },
  // "the password is hunter2", "passphrase: …", "my token was abc": a secret said in words.
  // Also as a JSON or YAML member: `"password": "S3cr3t!"`.
  {
    rule: 'recall:said-secret',
    re: /\b(?:password|passwd|passphrase|pass ?code|pin code|secret(?: key)?|api[ _-]?key|access[ _-]?key|token|credentials?)["']?\s*(?:is|was|are|=|:|->)\s*["'`]?([^\s"'`]{4,200})/dgi,
  },
  // An environment assignment whose name says secret: `PGPASSWORD=…`, `DB_PASS=…`, `STRIPE_SECRET=…`.
  {
    rule: 'recall:env-secret',
    re: /\b[A-Z][A-Z0-9_]*(?:PASSWORD|PASSWD|PASS|PWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)[A-Z0-9_]*\s*[=:]\s*["']?([^\s"'`]{4,200})/dg,
  },
  // Pasted HTTP: `Authorization: Basic …`, `X-Api-Key: …`, `Bearer …`.
  {
    rule: 'recall:auth-header',
    re: /\b(?:authorization|proxy-authorization|x-api-key|api-key|x-auth-token)\s*[:=]\s*(?:(?:basic|bearer|token|digest)\s+)?([^\s,;"'`]+)/dgi,
  },
  { rule: 'recall:bearer', re: /\bbearer\s+([A-Za-z0-9._~+/=-]{8,})/dgi },
  // A JSON Web Token: three base64url parts, the first two JSON objects (`{"` encodes as `eyJ`).
  // The signature may be empty (`alg: none`). The preset has no JWT rule.
  { rule: 'recall:jwt', re: /\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)/dg },
  // Stripe secret and restricted keys, and Google API keys, at their documented shapes (the
  // preset has no rule for either); the key-prefix rule below also takes shorter ones.
  { rule: 'recall:stripe-key', re: /\b((?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,247})\b/dg },
  { rule: 'recall:google-api-key', re: /\b(AIza[0-9A-Za-z_-]{35})/dg },
  // Hex keys behind a short prefix (Twilio API keys `SK` + 32, Mailgun `key-` + 32): hex stays under
  // the entropy rule's floor, and the preset has no rule for either.
  { rule: 'recall:hex-key', re: /\b((?:SK|key-)[0-9a-f]{32})\b/dg },
  // Well-known key prefixes with any length of tail: the preset's rules want each key's exact
  // length and alphabet, but a truncated, test or mistyped key in a prompt is still a key. The tail
  // must hold a digit (random keys do; `npm_config_cache` and `sk-learn` do not), or be 20 or more
  // characters mixing upper and lower case (a letters-only key; a snake_case name has no capitals).
  {
    rule: 'recall:key-prefix',
    re: /\b((?:sk-ant-|sk-proj-|sk-|gh[pousr]_|github_pat_|glpat-|xox[abeprs]-|sk_live_|rk_live_|sk_test_|rk_test_|npm_|AIza|hf_|pul-|sq0atp-|sq0csp-|dop_v1_|doo_v1_|whsec_|sntrys_|PMAK-|HRKU-)(?:(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{8,}|(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])[A-Za-z0-9_-]{20,})|(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{12,})/dg,
  },
];

/** Values that are placeholders, not secrets, when said in words ("the password is required"). */
const SAID_NOT_SECRET =
  /^(?:required|optional|empty|blank|set|unset|missing|wrong|incorrect|invalid|correct|expired|valid|stored|saved|hidden|masked|redacted|\*+|x+|\.+|null|none|true|false|the|a|an|in|not|being|still|now|also|too|only)[.,;:!?)]*$/i;

/** Counts, sizes and switches (`MAX_TOKENS=4096`, `token: 3600`, `SECRET_ROTATION=true`). */
const NOT_A_SECRET_VALUE = /^(?:\d{1,7}|\d+(?:\.\d+)?[smhdkKMG]?b?|true|false|yes|no|on|off|enabled?|disabled?)$/i;
/** Secret-sounding names that hold settings or paths, not secrets (`TOKEN_TTL`, `SECRET_FILE`). */
const NOT_A_SECRET_NAME =
  /^[A-Z0-9_]*?(?:_TTL|_LIMIT|_COUNT|TOKENS|_LENGTH|_SIZE|_TIMEOUT|_EXPIRY|_EXPIRES|_FILE|_PATH|_DIR|_NAME|_ID|_TYPE|_HEADER|_ENABLED)\s*[=:]/;

/** A reference to a secret kept elsewhere: `$VAR`, `${VAR}`, `%VAR%`, `{{ secrets.X }}`, `<password>`. */
const PLACEHOLDER = /^(?:\$\{?[A-Za-z_][\w.]*\}?|%[A-Za-z_]\w*%|\{\{.*\}\}|<[^<>]+>|\$\{\{.*\}\})$/;

function wordRanges(text: string, out: SecretRange[]): void {
  for (const { rule, re } of WORD_RULES) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const g = m.indices![1];
      if (!g) continue;
      const value = m[1]!.replace(/[.,;:!?)]+$/, '');
      if (rule !== 'recall:url-credentials' && (SAID_NOT_SECRET.test(value) || NOT_A_SECRET_VALUE.test(value))) continue;
      if (rule === 'recall:env-secret' && NOT_A_SECRET_NAME.test(m[0])) continue;
      if (PLACEHOLDER.test(value)) continue;
      out.push({ start: g[0], end: g[0] + value.length, rule });
    }
  }
}

/** Long enough that a random token carries real key material (128+ bits at base64's 6 bits a character). */
const ENTROPY_MIN_LENGTH = 32;
/**
 * Bits per character at or above which such a token counts as random: random base64 of 32-64
 * characters scores 4.6-5.2, hex at most 4 (so a git hash or a sha256 is never taken), long
 * identifiers and words 3-3.9.
 */
const ENTROPY_MIN_BITS = 4.0;
// `=` only as base64 padding at the end: inside, it separates a name from its value (`KEY=value`).
// Any run, the length checked after: `{32,}` would retry up to 32 characters at every position.
const TOKEN = /[A-Za-z0-9+/_-]+={0,3}/g;

const SLUG = /^[a-z]+(?:[-_][a-z]+)+(?:[-_][a-z0-9]{1,12})?$/;

function entropyRanges(text: string, out: SecretRange[]): void {
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    const t = m[0];
    if (t.length < ENTROPY_MIN_LENGTH) continue;
    // A path or URL part is words between slashes: judge it by its longest segment.
    const longest = t.split('/').reduce((a, b) => (b.length > a.length ? b : a), '');
    if (longest.length < ENTROPY_MIN_LENGTH && t.includes('/') && !/[+=]/.test(t)) continue;
    if (!/[0-9]/.test(t) || !/[A-Za-z]/.test(t)) continue;
    // A slug: lowercase words joined by - or _, a short suffix last (`lrn-pytest-pg-pool-fixture-c04e7a`,
    // a note id). Words push the entropy up without being random; a token is not made of them.
    if (SLUG.test(t)) continue;
    if (shannonEntropy(t) < ENTROPY_MIN_BITS) continue;
    out.push({ start: m.index, end: m.index + t.length, rule: 'recall:entropy' });
  }
}

/** Every secret found in `text`, sorted and merged (overlapping or touching ranges become one). */
export function findSecrets(text: string): SecretRange[] {
  const found: SecretRange[] = [];
  secretlintRanges(text, found);
  wordRanges(text, found);
  entropyRanges(text, found);
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretRange[] = [];
  for (const r of found) {
    const last = merged[merged.length - 1];
    if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else merged.push({ ...r });
  }
  return merged;
}
