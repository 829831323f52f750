/**
 * scrub() on many generated secrets: real private keys made with node:crypto (RSA PKCS#1 and
 * PKCS#8, EC P-256 SEC1 and PKCS#8, Ed25519, an encrypted PKCS#8), pasted whole or without their
 * END line, and random base64 of the lengths real secrets have (32, 40, 64 and 86 characters). Each
 * test counts the secrets of which any piece survives and prints the count, so the figures can be
 * compared with an older scrubber; none may survive.
 *
 * The random strings come from a seeded generator (sha256 of a seed and a counter), so a failure is
 * reproducible; the keys are real keys, new on every run.
 *
 * The other side: ordinary developer text (the example KB's notes, the evaluation set's documents)
 * is counted for redactions too, so a stricter rule that starts eating notes shows up here.
 */
import { describe, it, expect } from '@jest/globals';
import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REDACTED, scrub } from '../../sinks/scrub/scrub.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `n` pseudo-random bytes from `seed`: sha256 of the seed and a block counter, concatenated. */
function seededBytes(seed: string, n: number): Buffer {
  const blocks: Buffer[] = [];
  for (let i = 0; blocks.length * 32 < n; i += 1) blocks.push(createHash('sha256').update(`${seed}:${i}`).digest());
  return Buffer.concat(blocks).subarray(0, n);
}

/** Random standard base64 of exactly `length` characters (no padding cut in the middle). */
const randomBase64 = (seed: string, length: number): string =>
  seededBytes(seed, Math.ceil(length * 0.75) + 3)
    .toString('base64')
    .slice(0, length);

/** Some piece of `secret` (12 characters, 72 bits of a random string) is still in `out`. */
function survives(secret: string, out: string): boolean {
  const pieces = secret.split(/\s+/).filter(Boolean);
  for (const p of pieces) for (let i = 0; i + 12 <= p.length; i += 1) if (out.includes(p.slice(i, i + 12))) return true;
  return false;
}

/** Neutral sentences around a token: no word in them says "secret", so only the token rule can find it. */
const SENTENCES: readonly ((s: string) => string)[] = [
  (s) => `deploy fails with 401 using ${s} in the CI env, how do I rotate it`,
  (s) => `curl -d '${s}' https://hooks.example.com/build returns 403`,
  (s) => `the value ${s} stopped working after the migration`,
  (s) => `const signing = "${s}";`,
  (s) => `${s}`,
];

/** How many of `n` random base64 strings of `length` characters keep a piece after scrub(). */
function base64Survivors(length: number, n: number): number {
  let kept = 0;
  for (let i = 0; i < n; i += 1) {
    const s = randomBase64(`b64-${length}-${i}`, length);
    if (survives(s, scrub(SENTENCES[i % SENTENCES.length]!(s)))) kept += 1;
  }
  return kept;
}

interface KeyCase {
  name: string;
  count: number;
  make: () => KeyObject;
  format: { type: 'pkcs1' | 'pkcs8' | 'sec1'; cipher?: string; passphrase?: string };
}

const rsa = (): KeyObject => generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
const KEYS: readonly KeyCase[] = [
  // 1024-bit RSA keeps the spec quick on a loaded machine; a 2048-bit key has the same shape, only more lines.
  { name: 'RSA PKCS#8', count: 100, make: rsa, format: { type: 'pkcs8' } },
  { name: 'RSA PKCS#1', count: 100, make: rsa, format: { type: 'pkcs1' } },
  {
    name: 'EC P-256 SEC1',
    count: 100,
    make: () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey,
    format: { type: 'sec1' },
  },
  {
    name: 'EC P-256 PKCS#8',
    count: 100,
    make: () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey,
    format: { type: 'pkcs8' },
  },
  { name: 'Ed25519 PKCS#8', count: 100, make: () => generateKeyPairSync('ed25519').privateKey, format: { type: 'pkcs8' } },
  {
    name: 'encrypted PKCS#8',
    count: 20,
    make: () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey,
    format: { type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'correct horse' },
  },
];

/** The key's PEM text and its body (the base64 lines between the header and the END line). */
function pem(k: KeyCase): { text: string; body: string } {
  const text = k.make().export({ format: 'pem', ...k.format }) as string;
  const body = text
    .split('\n')
    .filter((l) => l && !l.startsWith('-----') && !/^[A-Za-z-]+: /.test(l))
    .join('\n');
  return { text, body };
}

/** Pastes of one key: whole inside a question, and cut before its END line (the rest of the question after it). */
const PASTES: readonly { name: string; paste: (text: string) => string }[] = [
  { name: 'whole', paste: (t) => `why does ssh reject this key?\n${t}\nthanks` },
  { name: 'whole, in a JSON string', paste: (t) => JSON.stringify({ private_key: t, client_email: 'ci@example.iam' }) },
  { name: 'without its END line', paste: (t) => `this key fails to load:\n${t.replace(/-----END [^\n]*-----\n?$/, '')}` },
  {
    name: 'without its END line, words after it',
    paste: (t) => `${t.replace(/-----END [^\n]*-----\n?$/, '')}\nopenssl says "bad decrypt", what now?`,
  },
];

describe('scrub on generated secrets (counts printed: secrets of which a piece survives)', () => {
  it.each([
    [32, 2000],
    [40, 2000],
    [64, 2000],
    [86, 2000],
  ])('random base64 of %i characters: none of %i survives', (length, n) => {
    const kept = base64Survivors(length, n);
    process.stdout.write(`scrub property: random base64 ${length} chars: ${kept} of ${n} survive\n`);
    expect(kept).toBe(0);
  });

  it('random base64url of 43 characters (32 random bytes, the usual API secret): none of 2000 survives', () => {
    let kept = 0;
    for (let i = 0; i < 2000; i += 1) {
      const s = seededBytes(`b64url-${i}`, 32).toString('base64url');
      if (survives(s, scrub(SENTENCES[i % SENTENCES.length]!(s)))) kept += 1;
    }
    process.stdout.write(`scrub property: random base64url 43 chars: ${kept} of 2000 survive\n`);
    expect(kept).toBe(0);
  });

  it('random small letters and digits (base36) of 40 characters: only what the entropy floor lets through survives', () => {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
    let kept = 0;
    for (let i = 0; i < 2000; i += 1) {
      const s = [...seededBytes(`b36-${i}`, 40)].map((b) => alphabet[b % 36]).join('');
      if (survives(s, scrub(SENTENCES[i % SENTENCES.length]!(s)))) kept += 1;
    }
    process.stdout.write(`scrub property: random base36 40 chars: ${kept} of 2000 survive\n`);
    // Random base36 of 40 characters scores under 4 bits a character about 2 times in 1,000.
    expect(kept).toBeLessThanOrEqual(10);
  });

  it.each(KEYS.map((k) => [k.name, k] as const))('%s private keys: no body line survives, whole or cut before END', (_name, k) => {
    const kept: Record<string, number> = Object.fromEntries(PASTES.map((p) => [p.name, 0]));
    let headerLost = 0;
    for (let i = 0; i < k.count; i += 1) {
      const { text, body } = pem(k);
      for (const p of PASTES) {
        const out = scrub(p.paste(text));
        if (survives(body, out)) kept[p.name]! += 1;
        // The header stays, so the log still says a key was pasted.
        if (!out.includes('-----BEGIN')) headerLost += 1;
      }
    }
    process.stdout.write(`scrub property: ${k.name} x${k.count}: ${PASTES.map((p) => `${p.name} ${kept[p.name]}`).join(', ')} survive\n`);
    expect(kept).toEqual(Object.fromEntries(PASTES.map((p) => [p.name, 0])));
    expect(headerLost).toBe(0);
  });

  it('a PEM header removes everything after it when no END line follows', () => {
    const out = scrub('key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAA is what I have');
    expect(out).toBe(`key:\n-----BEGIN OPENSSH PRIVATE KEY-----${REDACTED}`);
    // With an END line, the words after it are kept.
    expect(scrub('-----BEGIN PRIVATE KEY-----\nMC4CAQAw\n-----END PRIVATE KEY-----\nwhy?')).toBe(
      `-----BEGIN PRIVATE KEY-----${REDACTED}-----END PRIVATE KEY-----\nwhy?`,
    );
  });
});

describe('secrets said in other ways', () => {
  const j = (...p: string[]): string => p.join('');
  it.each([
    [
      "AWS's documentation example secret in prose",
      j('wJalrXUtnFEMI', '/K7MDENG/bPxRfiCY', 'EXAMPLEKEY'),
      (s: string) => `the docs use ${s} as the secret`,
    ],
    ['a password glued to mysql -p', 'Sunflower-77', (s: string) => `mysql -uroot -p${s} orders < dump.sql`],
    ['a quoted password glued to mysqldump -p', 'pa ss', (s: string) => `mysqldump -u app -p'${s}' orders`],
    ['a password given to sshpass -p', 'Sunflower-77', (s: string) => `sshpass -p ${s} ssh deploy@host`],
    ['a 32-hex Twilio auth token', j('3f9c2a7b1e4d5c6b', '7a8f9e0d1c2b3a4f'), (s: string) => `twilio auth token ${s} gives 20003`],
    [
      'a hex token after the word token',
      j('9b1de4c07a6f2e35', '8d0c1b2a3f4e5d6c'),
      (s: string) => `the slack signing secret for staging: ${s}`,
    ],
    ['das Passwort ist …', 'Sonnenblume42', (s: string) => `das Passwort ist ${s} aber der Login scheitert`],
    ['le mot de passe est …', 'Tournesol42', (s: string) => `le mot de passe est ${s} et ça échoue`],
    ['la contraseña es …', 'Girasol42x', (s: string) => `la contraseña es ${s} pero falla`],
    ['la password è …', 'Girasole42', (s: string) => `la password è ${s} ma non va`],
    ['密码是 …', 'Sunflower42', (s: string) => `数据库密码是${s}`],
  ])('%s', (_name, secret, say) => {
    const out = scrub(say(secret));
    expect(out).not.toContain(secret);
    expect(out).toContain(REDACTED);
  });

  it('leaves the same commands and words alone when they hold no secret', () => {
    for (const p of [
      'mysql -uroot -p orders < dump.sql',
      'mysql -u root -p --host db.internal',
      'git log 3f9c2a7b1e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b touches the token refresh code',
      'das Passwort ist falsch, sagt der Server',
      'the password to the staging db is required',
      'la clave es usar un pool por worker',
      'md5 3f9c2a7b1e4d5c6b7a8f9e0d1c2b3a4f of the tarball differs',
      'the token expiry fix is commit 3f9c2a7b1e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b on main',
    ])
      expect([p, scrub(p)]).toEqual([p, p]);
  });
});

describe('ids and paths are not secrets', () => {
  it('keeps note ids, with digits in their words too', () => {
    for (const id of [
      'lrn-s3-multipart-upload-needs-abort-rule-4f9a2c',
      'lrn-k8s-liveness-probe-cascade-2d6f48',
      'lrn-ec2-imdsv2-hop-limit-docker-9b1d3e',
      'lrn-oauth2-pkce-s256-verifier-length-7c2e1a',
      'lrn-redis-sliding-window-ratelimit-5f8b31',
    ])
      expect([id, scrub(id), scrub(`injected ${id} twice`)]).toEqual([id, id, `injected ${id} twice`]);
  });

  it('keeps paths and URLs made of words', () => {
    for (const p of [
      'see https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/Uint8Array for details',
      'https://github.com/microsoft/TypeScript/blob/71af02f7459dc812e85ac31365bfe23daf14b4e4/src/lib/es5.d.ts line 40',
      'pull sentence-transformers/all-MiniLM-L6-v2 into ~/.cache/recall/models/all-MiniLM-L6-v2/onnx',
      'open /Users/alice/Library/Application Support/Code/User/globalStorage/state.vscdb',
      'packages/api/src/v2/handlers/orderHandler.test.ts fails on CI',
      'src/examples/server/demoInMemoryOAuthProvider.ts is the example',
      'see https://owasp.org/www-community/attacks/Regular_expression_Denial_of_Service_-_ReDoS first',
    ])
      expect([p, scrub(p)]).toEqual([p, p]);
  });
});

/** The markdown notes under `dir`, recursively. */
const notesUnder = (dir: string): string[] =>
  fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => fs.readFileSync(path.join(e.parentPath, e.name), 'utf8'));

describe('ordinary developer text', () => {
  it.each([
    // A password in a compose file is a password, even a default one: rightly taken.
    ['the example KB', path.join(ROOT, 'examples/kb'), ['POSTGRES_PASSWORD: ***REDACTED***']],
    ['the evaluation documents', path.join(ROOT, '../shared/eval/golden/documents'), []],
  ])('%s: no redaction in its notes but a real password', (name, dir, expected) => {
    if (!fs.existsSync(dir)) return; // the evaluation set sits beside a checkout, not in it
    const notes = notesUnder(dir);
    // Each redaction with the words just before it, so a new one says what it took.
    const taken = notes.flatMap((t) => [...scrub(t).matchAll(/\S*\s?\*\*\*REDACTED\*\*\*/g)].map((m) => m[0]));
    process.stdout.write(`scrub property: ${name}: ${taken.length} redactions in ${notes.length} notes\n`);
    expect(notes.length).toBeGreaterThan(5);
    expect(taken).toEqual(expected);
  });
});
