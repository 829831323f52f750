/** Generated KBs for the bench: realistic note length and vocabulary, entity sidecars and dates, reproducible. */
import fs from 'node:fs';
import path from 'node:path';

/** Deterministic PRNG (mulberry32) so every run benches the same KB (and property specs see the same inputs). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TECH = (
  'postgres redis kafka docker kubernetes nginx terraform webpack vite jest vitest pytest celery sqlalchemy alembic ' +
  'prisma graphql grpc protobuf oauth jwt pkce cors csrf s3 cloudfront lambda dynamodb sqs sns cron systemd launchd tmux ' +
  'zsh bash git rebase worktree submodule lockfile npm pnpm yarn typescript esm commonjs node deno bun react nextjs ' +
  'hydration suspense tailwind eslint prettier babel swc esbuild rollup sentry datadog grafana prometheus opentelemetry ' +
  'pgbouncer replica failover migration index vacuum deadlock timeout retry backoff idempotency webhook stripe queue ' +
  'worker pool connection cache eviction ttl memory leak heap profiler flamegraph latency throughput rate-limit ' +
  'feature-flag rollout canary rollback secret vault kms certificate tls dns proxy ingress helm argocd github-actions ' +
  'runner artifact matrix monorepo turborepo codegen schema openapi pydantic fastapi django flask rails sidekiq'
).split(' ');
const VERBS = 'breaks fails hangs leaks times out corrupts drops duplicates blocks slows retries crashes'.split(' ');
const FILLER = (
  'when the service restarts under load the client keeps stale state and the next request sees the old value ' +
  'we traced it to the default configuration which assumes a single process and no concurrency in tests ' +
  'the fix is to make the setting explicit pin the version and add a check in CI so the regression cannot return'
).split(' ');
const TYPES = ['bug-fix', 'pattern', 'decision', 'anti-pattern', 'correction'];
const PROJECTS = ['billing-svc', 'web-dashboard', 'infra', 'data-pipeline', 'mobile-app'];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

export function generateKb(dir: string, n: number, sidecars = true): string[] {
  const r = rng(n);
  const docs = path.join(dir, 'documents');
  fs.mkdirSync(docs, { recursive: true });
  const queries: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const a = pick(r, TECH);
    const b = pick(r, TECH);
    const c = pick(r, TECH);
    const verb = pick(r, VERBS);
    const title = `${a} ${verb} with ${b} under ${c}`;
    const day = new Date(Date.UTC(2024, 0, 1) + Math.floor(r() * 1000) * 86_400_000).toISOString().slice(0, 10);
    const words = Array.from({ length: 150 + Math.floor(r() * 150) }, () => (r() < 0.25 ? pick(r, TECH) : pick(r, FILLER)));
    const id = `lrn-gen-${i.toString(36)}`;
    const fm = [
      '---',
      `id: ${id}`,
      `title: "${title}"`,
      `created: ${day}`,
      `confidence: ${pick(r, ['high', 'medium', 'low'])}`,
      `learning_type: ${pick(r, TYPES)}`,
      `project_id: ${pick(r, PROJECTS)}`,
      `tags: [${a}, ${b}]`,
      `key_insight: "When ${a} ${verb}, check ${b} first."`,
      '---',
      `<!-- archived: ${day}T10:00:00 -->`,
      '',
      '## Problem',
      words.slice(0, 60).join(' '),
      '',
      '## Solution',
      words.slice(60).join(' '),
      '',
      `**How to apply:** When ${a} ${verb} with ${b}, check ${c}.`,
      '',
    ].join('\n');
    fs.writeFileSync(path.join(docs, `${id}.md`), fm);
    if (sidecars)
      fs.writeFileSync(
        path.join(docs, `${id}.entities.yaml`),
        // A general technology (a hub shared by many notes) and a specific problem entity (few notes).
        `document_id: ${id}\nentities:\n  - name: ${a}\n    type: technology\n  - name: ${a}-${verb.replace(/ /g, '-')}-${b}\n    type: error\n` +
          `    description: "${a} ${verb} with ${b}"\n` +
          `relationships:\n  - source: ${a}-${verb.replace(/ /g, '-')}-${b}\n    target: ${a}\n    type: caused_by\n    strength: ${1 + Math.floor(r() * 9)}\n`,
      );
    if (i % Math.max(1, Math.floor(n / 40)) === 0)
      queries.push(r() < 0.5 ? `${a} ${verb} ${b}` : `why does ${a} keep failing when ${b} is slow in ${c}`);
  }
  return queries.slice(0, 40);
}
