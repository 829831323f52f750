/**
 * A hook's node starts without NODE_EXTRA_CA_CERTS (scripts/hook.sh keeps it as RECALL_EXTRA_CA_CERTS):
 * a team store reached from that process still trusts the user's CA bundle, and `require` keeps
 * libpq's meaning (verify only with a root certificate of its own).
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { clientConfig } from '../../sources/team/connection.js';
import type { TeamSettings } from '../../sources/team/settings.js';

const saved = process.env['NODE_EXTRA_CA_CERTS'];
afterEach(() => {
  if (saved === undefined) delete process.env['NODE_EXTRA_CA_CERTS'];
  else process.env['NODE_EXTRA_CA_CERTS'] = saved;
});

function settings(env: Record<string, string>): TeamSettings {
  return { url: 'postgres://u@db.example/recall', env } as unknown as TeamSettings;
}

describe('the team store from a hook started without the CA bundle', () => {
  const bundle = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-ca-')), 'corp.pem');
  fs.writeFileSync(bundle, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');

  it('trusts node roots and the kept bundle', async () => {
    delete process.env['NODE_EXTRA_CA_CERTS'];
    const cfg = await clientConfig(settings({ PGSSLMODE: 'verify-full', RECALL_EXTRA_CA_CERTS: bundle }), 1000);
    const ssl = cfg.ssl as { ca: string[]; rejectUnauthorized: boolean };
    expect(ssl.rejectUnauthorized).toBe(true);
    expect(ssl.ca.length).toBe(tls.rootCertificates.length + 1);
    expect(ssl.ca.at(-1)).toContain('BEGIN CERTIFICATE');
  });

  it('goes on with node roots when the kept bundle cannot be read, as node does with its own', async () => {
    delete process.env['NODE_EXTRA_CA_CERTS'];
    const cfg = await clientConfig(
      settings({ PGSSLMODE: 'verify-full', RECALL_EXTRA_CA_CERTS: path.join(os.tmpdir(), 'recall-no-such.pem') }),
      1000,
    );
    const ssl = cfg.ssl as { ca?: unknown; rejectUnauthorized: boolean };
    expect(ssl.rejectUnauthorized).toBe(true);
    expect(ssl.ca).toBeUndefined();
  });

  it('leaves trust to node when it started with the bundle, and require unverified without a root cert', async () => {
    process.env['NODE_EXTRA_CA_CERTS'] = bundle;
    const own = await clientConfig(settings({ PGSSLMODE: 'verify-full', RECALL_EXTRA_CA_CERTS: bundle }), 1000);
    expect((own.ssl as { ca?: unknown }).ca).toBeUndefined();
    delete process.env['NODE_EXTRA_CA_CERTS'];
    const req = await clientConfig(settings({ PGSSLMODE: 'require', RECALL_EXTRA_CA_CERTS: bundle }), 1000);
    expect((req.ssl as { rejectUnauthorized: boolean }).rejectUnauthorized).toBe(false);
  });
});
