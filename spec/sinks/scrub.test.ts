/**
 * scrub(): every secret shape a prompt carries is redacted (secretlint's recommended rules, recall's
 * own rules, the entropy rule), the words around it survive, ordinary technical text is left alone, and a
 * 10 kB prompt stays cheap enough for the hook path.
 */
import { describe, it, expect } from '@jest/globals';
import { REDACTED, findSecrets, scrub, scrubAlong, scrubEvidence, scrubStrings, shannonEntropy } from '../../sinks/scrub/scrub.js';
import { SECRET_SHAPES } from '../../scripts/hostile/secret-shapes.js';

/** CPU milliseconds this process used so far (steadier than wall time on a shared machine). */
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

describe('scrub', () => {
  it.each(SECRET_SHAPES.map((s) => [s.name, s] as const))('redacts %s', (_name, s) => {
    const out = scrub(s.prompt);
    expect(out).not.toContain(s.secret);
    expect(out).toContain(REDACTED);
  });

  it('keeps the words around a secret, so the log still says what was asked', () => {
    const s = SECRET_SHAPES.find((x) => x.name === 'password in a postgres URL')!;
    expect(scrub(s.prompt)).toBe(`psql postgres://app:${REDACTED}@db.internal:5432/orders times out from the test runner`);
    expect(scrub('the staging admin password is hunter2-Sunflower but login fails')).toBe(
      `the staging admin password is ${REDACTED} but login fails`,
    );
  });

  it('redacts passwords in JSON members and secret-named environment assignments', () => {
    expect(scrub('{"db": {"user": "app", "password": "S3cr3t!Pass"}}')).toBe(`{"db": {"user": "app", "password": "${REDACTED}"}}`);
    expect(scrub('PGPASSWORD=Pg!pass2024 psql -h db')).toBe(`PGPASSWORD=${REDACTED} psql -h db`);
    expect(scrub('curl -H "Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==" https://x')).toBe(
      `curl -H "Authorization: Basic ${REDACTED}" https://x`,
    );
    expect(scrub('DB_PASSWORD=${DB_PASSWORD} and NODE_ENV=production')).toBe('DB_PASSWORD=${DB_PASSWORD} and NODE_ENV=production');
  });

  it('redacts a secret given to a command-line flag after a space, and a registry login -p', () => {
    expect(scrub('mysql -u root --password Hunter2x -e "select 1"')).toBe(`mysql -u root --password ${REDACTED} -e "select 1"`);
    expect(scrub('vault write auth/x --client-secret "a b c" --ttl 1h')).toBe(`vault write auth/x --client-secret ${REDACTED} --ttl 1h`);
    expect(scrub('tool --api-key 7f3kq9x2 run')).toBe(`tool --api-key ${REDACTED} run`);
    expect(scrub('docker login -u ci -p S3cretPass registry.local')).toBe(`docker login -u ci -p ${REDACTED} registry.local`);
    // Not a secret: a port, a flag that reads the secret from elsewhere, a reference, the next flag.
    for (const plain of [
      'docker run -p 8080:80 nginx',
      'docker login -u ci --password-stdin < token.txt',
      'cli --token-file ./token --verbose',
      'cli --password $DB_PASSWORD',
      'cli --token --verbose',
    ])
      expect(scrub(plain)).toBe(plain);
  });

  it("keeps match evidence's label and hides a secret's words in it, stemmed as the matcher stems them", () => {
    const call = './gradlew publish --password correct-horse-battery-staple';
    // The matcher reads a word of the password as `batteri`: still the password.
    expect(scrubEvidence('word:batteri', call)).toBe(`word:${REDACTED}`);
    expect(scrubEvidence('word:hors', call)).toBe(`word:${REDACTED}`);
    expect(scrubEvidence('word:batteri', 'deploy --password CorrectHorseBatteryStaple')).toBe(`word:${REDACTED}`);
    expect(scrubEvidence('token:main.go', call)).toBe('token:main.go');
    expect(scrubEvidence('word:publish', call)).toBe('word:publish');
  });

  it('redacts a key by its prefix whatever its length (truncated or test keys)', () => {
    for (const k of [
      'sk-ant-api03-abcdefghijklmnop',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'sk_test_4eC39HqLyjWDarjtT1',
      'AKIAQWERTYUIOPASDFGH',
      // Shapes the preset has no rule for (built from parts so no whole key sits in the source).
      ['SK', '3f9c2a7b1e4d5c6b7a8f9e0d1c2b3a4f'].join(''),
      ['key-', '3f9c2a7b1e4d5c6b7a8f9e0d1c2b3a4f'].join(''),
      ['pul-', '3f9c2a7b1e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b'].join(''),
      ['sq0atp-', 'Zq7Lm2Pv9Rt4Nw8Ky3Bj6H'].join(''),
      ['dop_v1_', '3f9c2a7b1e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b'].join(''),
      // A letters-only key: no digit, but long and mixing cases.
      ['sk-', 'live-ABCDEFGHIJKLMNOPQRSTUV'].join(''),
    ])
      expect(scrub(`key ${k} fails`)).toBe(`key ${REDACTED} fails`);
    // Words that merely start like a prefix are left alone.
    expect(scrub('the sk-learn model and npm_config_cache, ghost_town')).toBe('the sk-learn model and npm_config_cache, ghost_town');
    expect(scrub('set npm_config_cache_directory_for_builds')).toBe('set npm_config_cache_directory_for_builds');
  });

  it('finds a secret split by invisible characters, and stores none of them', () => {
    const s = SECRET_SHAPES.find((x) => x.name === 'GitHub classic token (ghp_)')!;
    const split = `${s.secret.slice(0, 6)}\u200b${s.secret.slice(6, 20)}\u2060\u{e0041}${s.secret.slice(20)}`;
    expect(scrub(`use ${split} please`)).toBe(`use ${REDACTED} please`);
  });

  it('stays fast on hostile input: long runs of keywords, matches and unterminated blocks', () => {
    const hostile = [
      'api_key=abcdefghij1234567890 '.repeat(4000),
      'key='.repeat(25_000),
      '-----BEGIN PRIVATE KEY-----\n'.repeat(2000),
      `-----BEGIN RSA PRIVATE KEY-----\n${'QUJDRA'.repeat(16_000)}`,
      'authorization: '.repeat(7000),
      'Ab1+'.repeat(25_000),
      // One long run with no vowel, and hex groups that end in a letter: what the written-text test reads.
      'bcdfghjklmnpqrstvwxz'.repeat(5000),
      `${'3f9c-a7b1-'.repeat(10_000)}g`,
    ];
    for (const t of hostile) {
      const t0 = cpuMs();
      scrub(t);
      // About 100 kB each; linear work is tens of milliseconds of CPU (at most ~170 measured), quadratic work is seconds.
      expect({ head: t.slice(0, 20), fast: cpuMs() - t0 < 1500 }).toEqual({ head: t.slice(0, 20), fast: true });
    }
  });

  it('leaves ordinary technical prompts alone', () => {
    const plain = [
      'postgres connection pool exhausted in tests',
      'the password is required on the login form, why does validation skip it?',
      'git checkout 3f9c2a7b1e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b and rerun the token refresh test',
      'src/components/UserProfileSettingsPanel/useUserProfileSettings.test.tsx fails on CI',
      'set API_KEY=${API_KEY} in the workflow, the secret comes from the repo settings',
      'sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 does not match',
      'uuid 123e4567-e89b-12d3-a456-426614174000 is missing from the index',
      'export const useAuthenticatedRequestInterceptorFactoryWithRetries = () => {}',
      'connect to postgres://localhost:5432/orders with the default user',
      'MAX_TOKENS=4096 TOKEN_TTL=3600 SECRET_FILE=/run/secrets/db and the token is expired',
      'GOOGLE_APPLICATION_CREDENTIALS_PATH=/etc/gcp/key.json is not picked up',
    ];
    for (const p of plain) expect([p, scrub(p)]).toEqual([p, p]);
  });

  it('scrubs every string of a record, keys and numbers kept', () => {
    const s = SECRET_SHAPES[0]!;
    expect(scrubStrings({ query: s.prompt, n: 3, nested: [{ q: s.secret }] })).toEqual({
      query: scrub(s.prompt),
      n: 3,
      nested: [{ q: REDACTED }],
    });
  });

  it('names the rule that found each secret', () => {
    const rules = SECRET_SHAPES.flatMap((s) => findSecrets(s.prompt).map((r) => r.rule));
    expect(rules).toEqual(
      expect.arrayContaining([
        '@secretlint/secretlint-rule-aws',
        '@secretlint/secretlint-rule-github',
        '@secretlint/secretlint-rule-privatekey',
        '@secretlint/secretlint-rule-npm',
        '@secretlint/secretlint-rule-gitlab',
        '@secretlint/secretlint-rule-anthropic',
        '@secretlint/secretlint-rule-database-connection-string',
        'recall:stripe-key',
        'recall:google-api-key',
        'recall:jwt',
        'recall:said-secret',
      ]),
    );
  });

  it("narrows secretlint's wide ranges to the secret, and lets no comment in the text switch a rule off", () => {
    // The URL rules report the whole URL, the AWS rule a range starting at the variable's name.
    expect(scrub('git clone https://alice:S3cretPw9@github.com/x/y')).toBe(`git clone https://alice:${REDACTED}@github.com/x/y`);
    expect(scrub('mongodb+srv://admin:Xy7pQ2zz@cluster0.example.net/db')).toBe(`mongodb+srv://admin:${REDACTED}@cluster0.example.net/db`);
    const aws = SECRET_SHAPES.find((x) => x.name === 'AWS secret access key')!;
    expect(scrub(`aws_secret_access_key = "${aws.secret}"`)).toBe(`aws_secret_access_key = "${REDACTED}"`);
    const gh = SECRET_SHAPES.find((x) => x.name === 'GitHub classic token (ghp_)')!;
    expect(scrub(`// secretlint-disable\n${gh.secret}\n// secretlint-enable`)).toBe(
      `// secretlint-disable\n${REDACTED}\n// secretlint-enable`,
    );
  });

  it('measures entropy in bits per character', () => {
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBe(2);
  });

  it('costs little on a 10 kB prompt, with and without secrets in it', () => {
    const filler =
      'The connection pool in the integration tests runs out after the retry loop; the api key rotation job and the auth token refresh both hold a client. ';
    const clean = filler.repeat(Math.ceil(10_240 / filler.length)).slice(0, 10_240);
    const dirty = clean.slice(0, 5000) + SECRET_SHAPES.map((s) => s.prompt).join(' ') + clean.slice(5000, 10_240 - 2000);
    const time = (t: string): number => {
      scrub(`${t}.`); // compile the rules this text needs
      const runs = 20;
      const t0 = cpuMs();
      // A different text each time: scrub() remembers the last one.
      for (let i = 0; i < runs; i += 1) scrub(`${t} ${i}`);
      return (cpuMs() - t0) / runs;
    };
    const msClean = time(clean);
    const msDirty = time(dirty);
    process.stdout.write(
      `scrub on 10 kB: ${msClean.toFixed(2)} ms CPU clean, ${msDirty.toFixed(2)} ms with ${SECRET_SHAPES.length} secrets\n`,
    );
    // CPU time (a loaded machine stretches wall time, not this), with generous bounds.
    expect(msClean).toBeLessThan(50);
    expect(msDirty).toBeLessThan(50);
    for (const s of SECRET_SHAPES) expect(scrub(dirty)).not.toContain(s.secret);
  });
});

describe('scrubAlong: text derived from a prompt', () => {
  it('removes the pieces of a secret the prompt held wherever they reappear, in any case', () => {
    const prompt = 'postgres://admin:Hunter2Hunter2@db.internal:5432/prod kafka lag';
    const reason = 'no note mentions "admin", "hunter2hunter2", "kafka"';
    const out = scrubAlong({ abstained: reason, injected: [{ title: 'Kafka lag' }] }, prompt);
    expect(out.abstained).not.toContain('hunter2hunter2');
    expect(out.abstained).toContain(REDACTED);
    expect(out.abstained).toContain('"kafka"');
    expect(out.injected[0]!.title).toBe('Kafka lag');
  });

  it('is scrubStrings when the prompt held no secret', () => {
    const v = { a: 'token=ghp_abcdefghijklmnopqrstuvwxyz0123456789', b: 'plain words' };
    expect(scrubAlong(v, 'just a question about kafka')).toEqual(scrubStrings(v));
  });
});

describe('the entropy rule and identifiers', () => {
  it('keeps note ids and other slugs, and still takes a random token', () => {
    for (const id of [
      'lrn-pytest-pg-pool-fixture-c04e7a',
      'lrn-sqlalchemy-queuepool-exhausted-3b9f1c',
      'deploy_rollback_after_failed_migration_v2',
    ])
      expect(scrub(`see ${id} now`)).toBe(`see ${id} now`);
    const token = ['Zq8vR2mK', 'x7Lp4Nw9', 'Bt3Hj6Ys', 'Qe1Uc5Df'].join('');
    expect(scrub(`key ${token} here`)).toBe(`key ${REDACTED} here`);
  });
});
