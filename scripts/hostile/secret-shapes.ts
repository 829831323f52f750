/**
 * The secret shapes of the scrubbing specs and the hostile harness: each a prompt as a user would
 * paste it, and the secret in it that must never reach disk. Values are made up (right shape,
 * random characters), never real credentials.
 */
export interface SecretShape {
  name: string;
  prompt: string;
  secret: string;
}

// Built from parts so that no complete key shape sits in the source (push protection and
// scanners would flag this file otherwise).
const j = (...p: string[]): string => p.join('');

export const SECRET_SHAPES: readonly SecretShape[] = [
  { name: 'AWS access key id (AKIA)', secret: j('AKIA', 'QW7RZ3N5XK2PLM4T'), prompt: '' },
  { name: 'AWS temporary key id (ASIA)', secret: j('ASIA', 'JX4PQ7ZR2MN6KT3W'), prompt: '' },
  { name: 'AWS secret access key', secret: j('h7Kq9Zt2Lx', '/Vb4Nw8Rm3Yp', '6Jc1Fd5Gs0AeUi+oTz'), prompt: '' },
  { name: 'GitHub classic token (ghp_)', secret: j('ghp_', 'R8mQ2xVt7LpZ4kN9wB3cY6hJ1fD5sA0gE2uK'), prompt: '' },
  {
    name: 'GitHub fine-grained token',
    secret: j('github_pat_', '11ABCDE2Q0', 'xY7kPz3LmQ9t', '_', 'W4nB8cJ2hF6dS1gA5eK0uIo3Ty7Ux9Zq2Mw4Vb6Nr8Lp1Ks3Jd5Hf7Gg9Ee'),
    prompt: '',
  },
  {
    name: 'PEM private key body',
    secret: j('MIIEowIBAAKCAQEA', 'q3Zx8Lm2Pv7Rt4Nw9Ky6Bj1Hc5Fd0Gs3Ae8Ui2Oo7Tz4Xy9Wq6Vb1Nm5Lk0Jh3Gf8Ds2Ap7'),
    prompt: '',
  },
  { name: 'Stripe live key (sk_live_)', secret: j('sk_live_', '51Hx7QpZ2mK9tR4vL8nB3cW6yJ1fD5sA0gE'), prompt: '' },
  { name: 'Google API key (AIza)', secret: j('AIza', 'SyB7x9Qp2Lm4Zt8Rk3Nw6Vj1Hc5Fd0Gs7Ae'), prompt: '' },
  {
    name: 'JWT',
    secret: j(
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9',
      '.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFsaWNlIn0',
      '.Xq7Lm2Pv9Rt4Nw8Ky3Bj6Hc1Fd5Gs0Ae7Ui2Oo4Tz',
    ),
    prompt: '',
  },
  { name: 'password in a postgres URL', secret: 'Tr0ub4dor-and-3', prompt: '' },
  { name: 'npm token (npm_)', secret: j('npm_', 'Q7xZ2mK9tR4vL8nB3cW6yJ1fD5sA0gEh2Uk4'), prompt: '' },
  { name: 'GitLab token (glpat-)', secret: j('glpat-', 'x7Qp2Lm4Zt8Rk3Nw6VjH'), prompt: '' },
  { name: 'password said in words', secret: 'hunter2-Sunflower', prompt: '' },
  {
    name: 'Anthropic key (sk-ant-)',
    secret: j('sk-ant-api03-', 'Zq7Lm2Pv9Rt4Nw8Ky3Bj6Hc1Fd5Gs0Ae7Ui2Oo4TzXy9Wq6Vb1Nm5Lk0Jh3Gf8Ds2Ap7Qw4Er6Ty8Ui0Op2As4Df6Gh8J', 'AA'),
    prompt: '',
  },
].map((s) => ({ ...s, prompt: promptFor(s.name, s.secret) }));

function promptFor(name: string, secret: string): string {
  switch (name) {
    case 'AWS secret access key':
      return `boto3 fails with SignatureDoesNotMatch, I exported AWS_SECRET_ACCESS_KEY=${secret} in the shell`;
    case 'PEM private key body':
      return `why does ssh reject this key?\n-----BEGIN RSA PRIVATE KEY-----\n${secret}\n${secret.split('').reverse().join('')}\n-----END RSA PRIVATE KEY-----\n`;
    case 'password in a postgres URL':
      return `psql postgres://app:${secret}@db.internal:5432/orders times out from the test runner`;
    case 'password said in words':
      return `the staging admin password is ${secret} but login still fails with 401`;
    case 'JWT':
      return `the API returns 403 for this token ${secret} after the refresh`;
    default:
      return `deploy fails with 401 using ${secret} in the CI env, how do I rotate it`;
  }
}
