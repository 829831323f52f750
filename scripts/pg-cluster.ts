/**
 * A throwaway PostgreSQL cluster for the team-store tests and the `--team` bench:
 * initdb in a temp dir as an unprivileged user (the `postgres` account when we run as root, the
 * current user otherwise), password authentication (scram-sha-256) on 127.0.0.1 and a free port,
 * fsync off (nothing here needs to survive a crash). Nothing is installed: when no PostgreSQL
 * server binaries are found, `startCluster` says so and the caller skips.
 *
 * CLI (used by .ci/run):
 *   node dist/scripts/pg-cluster.js start   → prints `export RECALL_TEST_PG_URL=… RECALL_TEST_PG_DIR=…`
 *   node dist/scripts/pg-cluster.js stop DIR
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Cluster {
  /** Superuser connection URL (password included: a throwaway cluster's). */
  url: string;
  /** With `ssl`: the self-signed certificate (for 127.0.0.1 and localhost) clients can trust. */
  caFile: string | null;
  dir: string;
  port: number;
  bin: string;
  /** Stop the server and remove its files. */
  stop(): void;
  /** Stop the server (fast shutdown: clients are disconnected), keep its files (to test a server that went away). */
  pause(): void;
  /** Start it again on the same port. */
  resume(): void;
}

/** Folder holding initdb/pg_ctl: RECALL_PG_BIN, else the newest /usr/lib/postgresql/<v>/bin, else PATH. */
export function findPgBin(env: NodeJS.ProcessEnv = process.env): string | null {
  const has = (dir: string): boolean => fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl'));
  if (env['RECALL_PG_BIN']) return has(env['RECALL_PG_BIN']) ? env['RECALL_PG_BIN'] : null;
  try {
    const versions = fs
      .readdirSync('/usr/lib/postgresql')
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (has(`/usr/lib/postgresql/${v}/bin`)) return `/usr/lib/postgresql/${v}/bin`;
  } catch {
    /* not a Debian layout */
  }
  for (const dir of (env['PATH'] ?? '').split(':')) if (dir && has(dir)) return dir;
  return null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Run a server binary as the unprivileged owner of the cluster; throws with its output on failure. */
function runAs(user: string | null, cmd: string, args: string[]): void {
  const [file, argv] = user ? ['runuser', ['-u', user, '--', cmd, ...args]] : [cmd, args];
  const r = spawnSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  if (r.error) throw r.error;
  if (r.status !== 0)
    throw new Error(`${path.basename(cmd)} failed (${r.status}): ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`);
}

/** A private cluster directory owned by the server's user (root runs the server as `postgres`). */
function clusterDir(user: string | null, password: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-pg-'));
  fs.writeFileSync(path.join(dir, 'pw'), `${password}\n`, { mode: 0o600 });
  if (user) {
    const ids = spawnSync('id', ['-u', user], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', user], { encoding: 'utf8' });
    if (ids.status !== 0) throw new Error(`running as root and there is no '${user}' account to own the cluster`);
    fs.chownSync(dir, Number(ids.stdout.trim()), Number(gid.stdout.trim()));
    fs.chownSync(path.join(dir, 'pw'), Number(ids.stdout.trim()), Number(gid.stdout.trim()));
  }
  fs.chmodSync(dir, 0o700);
  return dir;
}

/** A self-signed server certificate valid for 127.0.0.1 and localhost (openssl); the CA copy and server options. */
function selfSigned(user: string | null, dir: string): { caFile: string; sslOpts: string } {
  const cert = path.join(dir, 'server.crt');
  const key = path.join(dir, 'server.key');
  const subject = ['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'];
  runAs(user, 'openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', ...subject, '-keyout', key, '-out', cert]);
  const caFile = path.join(os.tmpdir(), `recall-pg-ca-${path.basename(dir)}.crt`);
  fs.copyFileSync(cert, caFile);
  return { caFile, sslOpts: ` -c ssl=on -c ssl_cert_file=${cert} -c ssl_key_file=${key}` };
}

export async function startCluster(opts: { env?: NodeJS.ProcessEnv; ssl?: boolean } = {}): Promise<Cluster> {
  const bin = findPgBin(opts.env ?? process.env);
  if (!bin)
    throw new Error("no PostgreSQL server binaries (initdb, pg_ctl) found: install Debian's postgresql package or set RECALL_PG_BIN");
  const user = process.getuid?.() === 0 ? 'postgres' : null;
  const password = randomBytes(12).toString('hex');
  const dir = clusterDir(user, password);
  const data = path.join(dir, 'data');
  const { caFile, sslOpts } = opts.ssl ? selfSigned(user, dir) : { caFile: null, sslOpts: '' };
  const port = await freePort();
  const initdbArgs = ['-D', data, '-U', 'recall_admin', '--auth=scram-sha-256', `--pwfile=${path.join(dir, 'pw')}`];
  runAs(user, path.join(bin, 'initdb'), [...initdbArgs, '-E', 'UTF8', '--locale=C', '--no-sync']);
  const serverOpts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off${sslOpts}`;
  const pgCtl = (...args: string[]): void => runAs(user, path.join(bin, 'pg_ctl'), ['-D', data, ...args]);
  const start = (): void => pgCtl('-o', serverOpts, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start');
  const pause = (): void => {
    try {
      pgCtl('-m', 'fast', '-w', '-t', '60', 'stop');
    } catch {
      /* already stopped */
    }
  };
  start();
  const stop = (): void => {
    pause();
    fs.rmSync(dir, { recursive: true, force: true });
    if (caFile) fs.rmSync(caFile, { force: true });
  };
  return { url: `postgres://recall_admin:${password}@127.0.0.1:${port}/postgres`, caFile, dir, port, bin, pause, resume: start, stop };
}

/** Stop a cluster started by `start` from another process (its data dir is `<dir>/data`). */
export function stopClusterDir(dir: string): void {
  const bin = findPgBin();
  if (bin && fs.existsSync(path.join(dir, 'data'))) {
    try {
      runAs(process.getuid?.() === 0 ? 'postgres' : null, path.join(bin, 'pg_ctl'), [
        '-D',
        path.join(dir, 'data'),
        '-m',
        'fast',
        '-w',
        '-t',
        '60',
        'stop',
      ]);
    } catch {
      /* not running */
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [cmd, arg] = process.argv.slice(2);
  if (cmd === 'start') {
    try {
      const c = await startCluster();
      process.stdout.write(`export RECALL_TEST_PG_URL='${c.url}' RECALL_TEST_PG_DIR='${c.dir}'\n`);
    } catch (err) {
      process.stderr.write(`pg-cluster: cannot start a throwaway PostgreSQL cluster: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  } else if (cmd === 'stop' && arg) {
    stopClusterDir(arg);
  } else {
    process.stderr.write('usage: pg-cluster.js start | stop DIR\n');
    process.exitCode = 2;
  }
}
