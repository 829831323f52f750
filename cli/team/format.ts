/** The text the team commands print for their reports. */
import type { InitReport, PushReport, PullReport, Stall, TeamStatus, teamTrust } from '../../pipeline/team/index.js';

export function formatInit(r: InitReport): string {
  return (
    `team store ready: ${r.store} schema ${r.schema} (version ${r.info.version}${r.applied.length ? `, migrated: ${r.applied.join(', ')}` : ', up to date'}; store id ${r.info.storeId})\n` +
    `${r.pgvector}\n` +
    `settings saved in ${r.config}${r.passwordNotSaved ? ' (the password was not saved: give it with PGPASSWORD or ~/.pgpass)' : ''}\n`
  );
}

export function formatPush(r: PushReport): string {
  const c = r.counts;
  const lines = [
    `pushed ${r.kb} to ${r.store}: ${r.shared} shared notes: ${c.published} published, ${c.unchanged} unchanged, ${c.retired} retired in the store` +
      ` (${(r.ms / 1000).toFixed(2)} s)`,
  ];
  if (c.keptAsRevision)
    lines.push(
      `conflicts: ${c.keptAsRevision} of your edits are older than the store's latest revision and were kept as superseded revisions (see \`recall team history ID\`)`,
    );
  if (c.replacedOther)
    lines.push(
      `conflicts: ${c.replacedOther} notes last published from another machine were replaced by your newer edit (their revision is kept as superseded)`,
    );
  if (c.notYours)
    lines.push(
      `${c.notYours} retirements of notes another role published were not made in the store (only a note's author can retire it there); ` +
        `a shared note's \`supersedes:\` still retires them for teammates who trust you`,
    );
  lines.push(r.vectors);
  for (const s of r.skipped) lines.push(`skipped ${s.path}: ${s.reason}`);
  return `${lines.join('\n')}\n`;
}

export function formatPull(r: PullReport): string {
  const s = r.summary;
  const lines = [
    `pulled from ${r.store}${r.full ? ' (full)' : ''}: ${r.rows} changes, ${r.written} notes written, ${r.removed} removed, ${r.unchanged} unchanged` +
      `${r.tooLarge ? `, ${r.tooLarge} skipped (larger than 1 MiB)` : ''} (${(r.ms / 1000).toFixed(2)} s)`,
  ];
  // Why a changed note was not written: every reason a pull has, so no change goes unexplained.
  const why = [
    r.unchanged ? `${r.unchanged} already in the shard at that revision` : '',
    r.retired ? `${r.retired} retired in the store by their author or a trusted teammate` : '',
    r.tooLarge ? `${r.tooLarge} larger than 1 MiB (recall does not read them: ${named(r.tooLargeIds ?? [], r.tooLarge)})` : '',
  ].filter(Boolean);
  if (why.length) lines.push(`not written: ${why.join('; ')}`);
  if (r.stalled) lines.push(stallLine(r.stalled));
  const refused = Object.entries(r.refused);
  if (refused.length) {
    const n = refused.reduce((a, [, c]) => a + c, 0);
    lines.push(
      `refused: ${n} retirements by roles you do not trust and who did not write the note (${refused.map(([by, c]) => `${by} ${c}`).join(', ')}): ` +
        `those notes stay as their authors left them`,
    );
  }
  if (r.heldBack)
    lines.push(`held back: ${r.heldBack} newer revisions by authors you do not trust (the trusted author's revision is shown)`);
  if (r.local)
    lines.push(
      `${r.local} of the notes were published from this state dir's KBs: each KB's own recall leaves out the copies of its own notes` +
        (r.roleTrusted ? '' : `; your other KBs see them quarantined until you trust your own role (\`recall team trust ${r.role}\`)`),
    );
  lines.push(`team shard: ${s.notes} notes, ${s.quarantined} quarantined (trust an author with \`recall team trust AUTHOR\`)`);
  if (r.indexed) lines.push(`indexed with ${r.indexed}`);
  return `${lines.join('\n')}\n`;
}

/** Ids, and how many more there are. */
const named = (ids: readonly string[], total: number): string =>
  `${ids.join(', ')}${total > ids.length ? `, and ${total - ids.length} more` : ''}`;

/** Why a pull sees nothing new although teammates pushed: a transaction left open holds the store's view back. */
export function stallLine(s: Stall): string {
  const since = s.since
    ? `since ${s.since}${s.by ? ` (role ${s.by})` : ''}`
    : 'since before this pull (its start is shown only to its role and to pg_read_all_stats)';
  return (
    `the store has a transaction open ${since}; ${s.waiting} changes committed after it are not visible yet ` +
    `(they arrive with the first pull after it ends)`
  );
}

export function formatTrust(r: ReturnType<typeof teamTrust>): string {
  if ('list' in r)
    return r.list.length
      ? r.list.map((t) => `${t.author}\t${t.authority}\tsince ${t.since}`).join('\n') + '\n'
      : 'no trusted authors: every pulled note is quarantined\n';
  return (
    `${r.trusted ? `trusted ${r.author} (authority ${r.authority})` : `no longer trusting ${r.author}`}: ${r.changed} pulled notes updated; ` +
    `team shard: ${r.summary.notes} notes, ${r.summary.quarantined} quarantined (the next pull re-reads the store for older revisions)\n`
  );
}

export function formatStatus(s: TeamStatus): string {
  const lines = [
    `team store: ${s.configured ? `${s.store} (schema ${s.schema}, from ${s.source === 'env' ? 'RECALL_TEAM_URL' : 'the config file'})` : 'not configured (recall team init --url URL)'}`,
  ];
  lines.push(`this machine: ${s.machine}; live arm ${s.liveArm ? 'on (RECALL_TEAM_ARM=1)' : 'off'}`);
  const authors = Object.entries(s.shard.authors)
    .map(([a, n]) => `${a} ${n}`)
    .join(', ');
  lines.push(
    `pulled shard: ${s.shard.notes} notes, ${s.shard.quarantined} quarantined${authors ? ` (${authors})` : ''} in ${s.shard.root}`,
  );
  lines.push(
    `trusted: ${s.trusted.length ? s.trusted.map((t) => `${t.author} (${t.authority})`).join(', ') : 'nobody (every pulled note is quarantined)'}`,
  );
  lines.push(
    s.lastPull
      ? `last pull: ${s.lastPull.at}: ${s.lastPull.rows} changes, ${s.lastPull.written} written, ${s.lastPull.removed} removed` +
          (s.lastPull.refused ? `, ${s.lastPull.refused} retirements refused (see \`recall team pull\`)` : '')
      : 'last pull: never',
  );
  // Without asking the server (--no-probe), what the last pull saw.
  if (s.lastPull?.stalled && !s.server) lines.push(`at the last pull, ${stallLine(s.lastPull.stalled)}`);
  if (s.lastPullError) lines.push(`last pull error: ${s.lastPullError.at}: ${s.lastPullError.message}`);
  if (s.lastPush.length === 0) lines.push('last push: never');
  for (const p of s.lastPush)
    lines.push(
      `last push: ${p.at} from ${p.kb}: ${p.shared} shared, ${p.published} published, ${p.unchanged} unchanged, ${p.retired} retired, ${p.conflicts} conflicts`,
    );
  if (s.server) {
    if (s.server.reachable) {
      const c = s.server.counts;
      lines.push(
        `server: store ${s.server.storeId}, schema v${s.server.schemaVersion}, pgvector ${s.server.pgvector ? 'on' : 'off'}: ${c.current} current notes ` +
          `(${c.superseded} superseded, ${c.forgotten} forgotten, ${c.olderRevisions} older revisions kept, ${c.withVectors} with vectors); ` +
          `authors: ${
            Object.entries(c.authors)
              .map(([a, n]) => `${a} ${n}`)
              .join(', ') || 'none'
          }`,
      );
      if (s.server.stalled) lines.push(stallLine(s.server.stalled));
      if (s.server.schemaVersion < s.server.latestSchema)
        lines.push(
          `the store's schema is version ${s.server.schemaVersion}; run \`recall team init\` as the role that owns it to migrate it to ${s.server.latestSchema}`,
        );
    } else {
      lines.push(`server: unreachable: ${s.server.error}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
