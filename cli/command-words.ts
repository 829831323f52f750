/**
 * The sub-commands of `recall`: a first word that names one is never taken as a query (`recall --
 * WORD` searches it). Shared by the CLI's parser and the recall server's thin client, which sends
 * only a plain `recall QUERY` to the server; node-free and import-free so the client can bundle it.
 */
export const COMMAND_WORDS = [
  'index',
  'models',
  'daemon',
  'hook',
  'hooks',
  'stages',
  'trace',
  'explain',
  'replay',
  'mcp',
  'status',
  'doctor',
  'add',
  'supersede',
  'forget',
  'review',
  'accept',
  'reject',
  'show',
  'list',
  'help',
  'version',
  'completion',
  'team',
  'view',
] as const;

/** Flags that make any command line something other than a plain recall (help, version, completion). */
export const NOT_A_QUERY_FLAGS = ['--help', '-h', '--version', '-V', '--get-yargs-completions'] as const;
