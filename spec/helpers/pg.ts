/**
 * PostgreSQL for the team-store tests: the cluster .ci/run started (RECALL_TEST_PG_URL), else a
 * throwaway cluster of our own. When neither is possible the suite is skipped and says why.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startCluster, type Cluster } from '../../scripts/pg-cluster.js';

export interface TestPg {
  /** Superuser URL of the server (postgres database). */
  adminUrl: string;
  /** Our own cluster (null when .ci/run provided the server). */
  cluster: Cluster | null;
  host: string;
  port: number;
}

export async function testPg(): Promise<TestPg | { skip: string }> {
  const given = process.env['RECALL_TEST_PG_URL'];
  if (given) {
    const u = new URL(given);
    return { adminUrl: given, cluster: null, host: u.hostname, port: Number(u.port) };
  }
  try {
    const cluster = await startCluster();
    return { adminUrl: cluster.url, cluster, host: '127.0.0.1', port: cluster.port };
  } catch (err) {
    return { skip: (err as Error).message };
  }
}

export async function adminQuery(url: string, sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(sql, params);
  } finally {
    await c.end();
  }
}

/** A fresh database and login roles with random suffixes (several suites can share one server). */
export async function freshTeam(
  p: TestPg,
  names: string[],
): Promise<{ db: string; dbUrl: string; roles: Record<string, { name: string; password: string; url: string }> }> {
  const tag = randomBytes(4).toString('hex');
  const db = `team_${tag}`;
  await adminQuery(p.adminUrl, `CREATE DATABASE ${db}`);
  const roles: Record<string, { name: string; password: string; url: string }> = {};
  for (const n of names) {
    const name = `${n}_${tag}`;
    const password = `pw-${n}-${randomBytes(9).toString('hex')}`;
    await adminQuery(p.adminUrl, `CREATE ROLE ${name} LOGIN PASSWORD '${password}'`);
    roles[n] = { name, password, url: `postgres://${name}:${encodeURIComponent(password)}@${p.host}:${p.port}/${db}` };
  }
  const admin = new URL(p.adminUrl);
  admin.pathname = `/${db}`;
  return { db, dbUrl: admin.toString(), roles };
}
