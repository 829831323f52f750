/**
 * SQL a call runs or writes, read as commands: the statements a database client is given on its
 * command line (`psql -c "CREATE INDEX CONCURRENTLY …"`) and those an edit writes into a `.sql`
 * file. A note quotes the statement it warns of as it would a shell command. Pure.
 */
import { program } from './looking.js';

/** A SQL file by its name (`20260520_add_index.sql`, `V12__orders.sql`). */
const SQL_NAME = /\.sql$/i;

/**
 * The statements an edit writes into a SQL file, each as the words of a command (`CREATE INDEX
 * CONCURRENTLY …` → create, index, concurrently, …): what a migration will run, so a learning about
 * a statement applies to writing it as to running it through `psql -c`. Comment lines are left out.
 */
export function sqlFileCommands(path: string, lines: string): string[][] {
  if (!SQL_NAME.test(path)) return [];
  const code = lines
    .split('\n')
    .filter((l) => !/^\s*--/.test(l))
    .join('\n');
  return sqlCommands(code);
}

/**
 * Statements as the words of commands (`CREATE INDEX CONCURRENTLY i ON t (c)` → CREATE, INDEX,
 * CONCURRENTLY, i, ON, t, c), split at `;`, comments left out. A `WHERE ID=5` is no variable set, so `=`
 * splits too.
 */
export function sqlCommands(code: string): string[][] {
  // A comment is no part of a statement (`CREATE INDEX … -- CONCURRENTLY later` builds it plainly).
  return code
    .replace(/--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)/g, ' ')
    .split(';')
    .map((st) =>
      st
        .split(/[\s(),=]+/)
        .filter(Boolean)
        .slice(0, 40),
    )
    .filter((ws) => ws.length > 0)
    .slice(0, 50);
}

/** Database clients and the options that hand them statements to run (`psql -c '…'`, `mysql -e '…'`). */
const SQL_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  psql: ['-c', '--command'],
  mysql: ['-e', '--execute'],
  mariadb: ['-e', '--execute'],
  'clickhouse-client': ['-q', '--query'],
  duckdb: ['-c'],
  cqlsh: ['-e', '--execute'],
};

/** The statements a database client is given on its command line (`psql -c '…'`), its statement options' values; none for another program. */
export function clientStatements(words: readonly string[]): string[] {
  const options = SQL_OPTIONS[program(words)] ?? [];
  const out: string[] = [];
  for (let k = 1; k < words.length; k += 1) {
    const w = words[k]!;
    if (options.includes(w) && k + 1 < words.length) out.push(words[k + 1]!);
    else {
      const eq = options.find((o) => o.startsWith('--') && w.startsWith(`${o}=`));
      if (eq) out.push(w.slice(eq.length + 1));
    }
  }
  return out;
}
