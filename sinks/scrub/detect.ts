/**
 * Where the secrets are in a text: character ranges found by four detectors, merged.
 *
 * 1. secretlint's recommended rule preset (an npm dependency, run synchronously by secretlint.ts):
 *    maintained rules for provider keys and tokens (AWS, GitHub, GitLab, npm, Slack, OpenAI,
 *    Anthropic, Hugging Face, SendGrid, Shopify, private-key PEM blocks, database URLs, …).
 * 2. recall's own rules for what the preset lacks: shapes that are secrets but not tokens
 *    (credentials in a URL `postgres://user:pw@host`, a password said in words "the password is
 *    hunter2" or as a JSON/YAML member, an environment assignment named like a secret
 *    `PGPASSWORD=…`, a password said in a few other languages, one on a mysql or sshpass command
 *    line, hex that a secret word names, auth headers / bearer tokens in pasted requests), JWTs,
 *    Stripe and Google API keys, and well-known key prefixes (`sk-ant-`, `ghp_`, `AKIA`, …)
 *    followed by a tail of any length (the preset wants each key's exact length, but a truncated or
 *    test key is still a key).
 * 3. An entropy rule for long random tokens no pattern names: 32+ characters of the base64/url
 *    alphabet, judged whole (`/` is a base64 character, so a run is never cut into path segments),
 *    at 4.0 bits per character or more (random base64 of that length scores about 4.6-5; hex,
 *    identifiers, words and paths under 4), unless it reads as written text (a path or URL made of
 *    words, a note id or other slug).
 * 4. A PEM rule: a private key header starts a block that runs to its END line, or to the end of the
 *    text when none follows.
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
  // The same said in other languages: "das Passwort ist …", "le mot de passe est …", "la contraseña es …",
  // "la password è …". Words that also mean something else ("clave", "parola") are left out, and the
  // English word takes only connectors English prose does not use ("password to the db" is not one).
  {
    rule: 'recall:said-secret',
    re: /(?:(?<![\p{L}\p{N}])(?:passwort|kennwort|mot de passe|contraseña|contrasena|senha|wachtwoord|lösenord|passord|adgangskode|salasana|hasło|haslo|heslo|jelszó|пароль)["']?\s*(?:(?:ist|lautet|war|est|était|es|era|é|è|är|er|on|jest|je|to|is|было|это)(?![\p{L}\p{N}])|[=:：])|(?<![\p{L}\p{N}])(?:password|passwort)["']?\s*(?:ist|lautet|est|era|é|è|är|jest)(?![\p{L}\p{N}])|(?:密码|密碼|パスワード|비밀번호)\s*(?:是|は|：|:|=|는|은))\s*["'`„“«]?([^\s"'`“”»]{4,200})/dgiu,
  },
  // A password on a command line: `mysql -uroot -pS3cret` (glued to -p; `-p` alone asks for it), `sshpass -p …`.
  {
    rule: 'recall:cli-password',
    re: /\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mariadb|mariadb-dump)\b[^\n|;&]{0,200}?\s-p('[^'\n]{1,200}'|"[^"\n]{1,200}"|[^\s'"]{1,200})/dg,
  },
  { rule: 'recall:cli-password', re: /\bsshpass\s+-p\s*('[^'\n]{1,200}'|"[^"\n]{1,200}"|[^\s'"]{1,200})/dg },
  // A registry login's `-p VALUE` (`docker login -u me -p S3cret`; `-p` means a port elsewhere).
  {
    rule: 'recall:cli-password',
    re: /\b(?:docker|podman|nerdctl|buildah|skopeo)\s+login\b[^\n|;&]{0,200}?\s-p\s+('[^'\n]{1,200}'|"[^"\n]{1,200}"|[^\s'"-][^\s'"]{0,199})/dg,
  },
  // A long flag whose name ends in a secret's word, then its value after a space (`--password S3cret`,
  // `--token abc`, `--client-secret x`); with `=` the said-secret rule above takes it. A flag that
  // reads the secret from elsewhere (`--password-stdin`, `--token-file f`) ends in another word.
  {
    rule: 'recall:cli-flag-secret',
    re: /(?<![\w-])--[a-z0-9-]{0,40}?(?:password|passwd|passphrase|token|secret|api-?key|access-?key|private-?key|credentials?)\s+('[^'\n]{1,200}'|"[^"\n]{1,200}"|[^\s'"-][^\s'"]{3,199})/dgi,
  },
  // Hex the words just before call a secret: "twilio auth token 3f9c…", "signing secret for staging: 9b1d…".
  // Hex alone is a hash or an id (a commit, an md5) and is kept; said to be a secret, it is one,
  // unless the words between name a hash ("the token fix is commit 3f9c…", HASH_WORDS).
  {
    rule: 'recall:hex-secret',
    re: /\b(?:auth[ _-]?token|token|secret|api[ _-]?key|access[ _-]?key|password|passwd|signing[ _-]?key|credentials?)\b[^\n]{0,24}?\b([0-9a-fA-F]{32,128})\b/dgi,
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
  /^(?:include|omit|same-origin|falsch|richtig|leer|erforderlich|abgelaufen|ungültig|gesetzt|nicht|korrekt|requis|vide|expiré|obligatoire|incorrecto|vacío|requerido|obligatorio|errada|vazia|onjuist|verplicht|required|optional|empty|blank|set|unset|missing|wrong|incorrect|invalid|correct|expired|valid|stored|saved|hidden|masked|redacted|\*+|x+|\.+|null|none|true|false|the|a|an|in|not|being|still|now|also|too|only)[.,;:!?)]*$/i;

/** Words that say a hex string is a hash or a revision, not a secret. */
const HASH_WORDS = /\b(?:commit|sha\d*|hash|digest|checksum|md5|rev|revision|fingerprint)\b/i;

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
      if (
        rule !== 'recall:url-credentials' &&
        rule !== 'recall:cli-password' &&
        (SAID_NOT_SECRET.test(value) || (rule !== 'recall:cli-flag-secret' && NOT_A_SECRET_VALUE.test(value)))
      )
        continue;
      if (rule === 'recall:env-secret' && NOT_A_SECRET_NAME.test(m[0])) continue;
      if (rule === 'recall:hex-secret' && HASH_WORDS.test(m[0])) continue;
      if (PLACEHOLDER.test(value)) continue;
      out.push({ start: g[0], end: g[0] + value.length, rule });
    }
  }
}

/**
 * A private key's PEM header (`-----BEGIN RSA PRIVATE KEY-----`, `OPENSSH`, `EC`, `ENCRYPTED`, PGP's
 * `PRIVATE KEY BLOCK`, SSH2's four-dash form). The header is kept, so a log still says a key was
 * pasted; everything after it is the key.
 */
const PEM_BEGIN = /-{3,5} ?BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)? ?-{3,5}/g;
const PEM_END = /-{3,5} ?END\b/g;

/**
 * Each private key block from the end of its header to its END line, or to the end of the text
 * when no END line follows (a paste cut short, a key pasted and the question after it): nothing
 * after a header can be told apart from the key, so nothing after it is kept. Line breaks play no
 * part, so a key inside a JSON string (`"-----BEGIN PRIVATE KEY-----\\nMIIE…"`) is found too.
 */
function pemRanges(text: string, out: SecretRange[]): void {
  PEM_BEGIN.lastIndex = 0;
  for (let m = PEM_BEGIN.exec(text); m; m = PEM_BEGIN.exec(text)) {
    const start = m.index + m[0].length;
    PEM_END.lastIndex = start;
    const end = PEM_END.exec(text);
    out.push({ start, end: end ? end.index : text.length, rule: 'recall:private-key' });
    if (!end) return;
    PEM_BEGIN.lastIndex = end.index;
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
// `/` belongs to the run: base64 uses it, so a run is judged whole, never cut into path segments.
const TOKEN = /[A-Za-z0-9+/_-]+={0,3}/g;

/**
 * A slug: lowercase words (digits allowed, `s3`, `k8s`, `oauth2`) joined by - or _, a short suffix
 * last (`lrn-s3-multipart-upload-needs-abort-rule-4f9a2c`, a note id). Words push the entropy up
 * without being random; a token is not made of them.
 */
const SLUG = /^[a-z][a-z0-9]*(?:[-_][a-z][a-z0-9]*)+(?:[-_][a-z0-9]{1,12})?$/;

/**
 * Hex (a commit, a digest, a UUID's groups, a colour) stands for itself: hex is never taken on its
 * own. A piece between separators is hex when it is all hex digits of one case, 6 or more of them,
 * or 4 or more with a digit among them.
 */
const isHexPiece = (w: string): boolean => /^(?:[0-9a-f]+|[0-9A-F]+)$/.test(w) && (w.length >= 6 || (w.length >= 4 && /[0-9]/.test(w)));
/** A bit width between words (`Uint8Array`, `Float32Array`, `Base64Url`, `Sha256Hash`). */
const BIT_WIDTH = /(?<=[a-z]{2})(?:8|16|32|64|128|256|512)(?=[A-Z][a-z])/g;
/**
 * What written text is made of: words with a vowel (`Global`, `docs`), capitals standing as a word
 * (`API/`, `JSONParse`), numbers.
 */
const WRITTEN_PART = /[A-Z]?[a-z]+|(?<![A-Za-z])[A-Z]{2,8}(?![a-z])|[A-Z]{2,8}(?=[A-Z][a-z])|(?<![A-Za-z0-9])[0-9]+(?![A-Za-z0-9])/g;
const VOWEL_OR_NOT_WORD = /[aeiouy]|^[A-Z0-9]+$/;

type CharClass = 'upper' | 'lower' | 'digit' | null;
const classOf = (ch: string | undefined): CharClass =>
  ch === undefined ? null : ch >= 'A' && ch <= 'Z' ? 'upper' : ch >= 'a' && ch <= 'z' ? 'lower' : ch >= '0' && ch <= '9' ? 'digit' : null;

/**
 * The run reads as written text (a path, a URL, an identifier), not as random characters. Random
 * base64 switches between capitals, small letters and digits at nearly every character: a small
 * letter alone between digits or capitals (`7b4`, `KxQ`), a digit alone next to a capital (`K7M`),
 * a capital alone between digits, long capital runs inside a word, several `aBCd` switches. Written
 * text has none of these (`Global_Objects/Uint8Array`, `all-MiniLM-L6-v2`, `getUserById`, where a
 * capital after a lone small letter starts the next word), and most of its characters are in words
 * or numbers. `+` never appears in paths or names, nor 25 small letters and digits in one piece.
 *
 * Measured on 200,000 random base64 strings of 32 characters (the shortest judged), about 4 in
 * 10,000 are kept (a third of them for their low entropy); 2 in 100,000 at 40 characters, 5 in
 * 100,000 for base64url of 32 bytes; none of 50,000 at 64.
 */
function readsAsWritten(t: string): boolean {
  if (t.includes('+')) return false;
  // A long piece of small letters and digits with no separator is a random token (base36), not a word.
  for (const w of t.match(/[A-Za-z0-9]+/g) ?? []) if (w.length >= 25 && /^[a-z0-9]+$/.test(w) && !isHexPiece(w)) return false;
  // Every pattern here is linear: a run can be 100 kB of a hostile paste.
  const m = t.replace(/[A-Za-z0-9]+/g, (w) => (isHexPiece(w) ? '-'.repeat(w.length) : w)).replace(BIT_WIDTH, (x) => '-'.repeat(x.length));
  // A capital starts the next word when a small letter follows it, or ends the run (`ReDoS`, `NaN`).
  const startsWord = (j: number): boolean =>
    classOf(m[j]) === 'upper' && (classOf(m[j + 1]) === 'lower' || !/[A-Za-z]/.test(m[j + 1] ?? ''));
  for (let i = 1; i < m.length - 1; i += 1) {
    const [a, b, c] = [classOf(m[i - 1]), classOf(m[i]), classOf(m[i + 1])];
    if (!a || !b || !c) continue;
    if (b === 'lower' && a !== 'lower' && c !== 'lower' && !(a === 'upper' && c === 'upper' && startsWord(i + 1))) return false;
    if (b === 'digit' && a !== 'digit' && c !== 'digit' && (a === 'upper' || c === 'upper')) return false;
    if (b === 'upper' && a === 'digit' && c === 'digit') return false;
  }
  if (/[a-z][A-Z]{7,}/.test(m) || (m.match(/[a-z][A-Z]{2,}[a-z]/g) ?? []).length >= 2) return false;
  const alnum = m.replace(/[^A-Za-z0-9]/g, '').length;
  if (alnum === 0) return true;
  let written = 0;
  for (const p of m.matchAll(WRITTEN_PART)) if (VOWEL_OR_NOT_WORD.test(p[0])) written += p[0].length;
  return written >= 0.6 * alnum;
}

function entropyRanges(text: string, out: SecretRange[]): void {
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    const t = m[0];
    if (t.length < ENTROPY_MIN_LENGTH) continue;
    if (!/[A-Za-z]/.test(t)) continue;
    if (SLUG.test(t)) continue;
    if (shannonEntropy(t) < ENTROPY_MIN_BITS) continue;
    if (readsAsWritten(t)) continue;
    out.push({ start: m.index, end: m.index + t.length, rule: 'recall:entropy' });
  }
}

/** Every secret found in `text`, sorted and merged (overlapping or touching ranges become one). */
export function findSecrets(text: string): SecretRange[] {
  const found: SecretRange[] = [];
  secretlintRanges(text, found);
  pemRanges(text, found);
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
