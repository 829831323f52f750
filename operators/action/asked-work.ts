/**
 * The kinds of work teams write rules about, in a prompt that asks for them and in a note named for
 * them: "write tests for X" and a memory `go-test-style`, "add some debug logging" and
 * `logging-privacy`, "find a library for X" and `new-dependency-policy`. Claude Code memories are
 * mostly such rules ("Go tests are table-driven", "never log payloads"), and a prompt asking for the
 * work rarely repeats a word of the rule beyond the work's own everyday name. Pure.
 *
 * The kinds are the everyday work of a code base, not topics of one project: tests, logging,
 * migrations, metrics, dependencies, CI, lint, benchmarks, deploys. Git steps are apart
 * (git-steps.ts), since "commit" and "push" are requests by themselves.
 */
import { stemOf } from '../../core/stems.js';

interface WorkKind {
  kind: string;
  /** Words a prompt names the work with, as the object of a request ("add some debug *logging*"). */
  objects: string[];
  /** Stems of a note's name that say it is named for the work (`go-test-style`, `logging-privacy`). */
  named: string[];
}

const KINDS: WorkKind[] = [
  { kind: 'test', objects: ['tests?', 'testing', 'unit tests?', 'integration tests?', 'test cases?', 'specs?'], named: ['test'] },
  { kind: 'log', objects: ['logs?', 'logging', 'log lines?', 'log statements?'], named: ['log'] },
  { kind: 'migration', objects: ['migrations?'], named: ['migrat'] },
  { kind: 'metric', objects: ['metrics?', 'counters?', 'histograms?', 'gauges?'], named: ['metric'] },
  {
    kind: 'dependency',
    objects: ['dependency', 'dependencies', 'deps?', 'librar(?:y|ies)', 'crates?', 'third-party packages?'],
    named: ['depend', 'dep', 'librari', 'crate'],
  },
  { kind: 'ci', objects: ['ci', 'ci jobs?', 'ci steps?', 'ci runs?', 'pipelines?', 'workflows?'], named: ['ci'] },
  { kind: 'lint', objects: ['lint', 'linters?', 'linting'], named: ['lint', 'linter'] },
  { kind: 'benchmark', objects: ['benchmarks?', 'bench(?:es)?', 'perf numbers'], named: ['benchmark', 'bench'] },
  { kind: 'deploy', objects: ['deploys?', 'deployments?', 'rollouts?', 'replicas'], named: ['deploi', 'deploy'] },
];

/** Where a request starts: the prompt's start, a sentence or clause mark, or "and", "then", "please"... */
const CLAUSE = String.raw`(?:^|[.;:!?,]\s+|\b(?:and|then|also|please|pls|now|just|go ahead and|can you|could you|would you|let's|lets|should|must|to|will|i'll|we'll)\s+)`;
/** The verbs of a request for work ("write", "add", "set up", "find", "run"). */
const VERBS = String.raw`(?:write|add|create|make|build|set up|wire up|wire|put|update|change|extend|fix|remove|rip out|run|find|pick|pull in|bring in|install|introduce|use|bump|dump)`;
/** At most five words between the verb and what it asks for ("add some debug logging", "dump the raw payload into the logs"); no punctuation crossed. */
const BETWEEN = String.raw`(?:[\w'./-]+\s+){0,5}?`;

const ASKED = KINDS.map((k) => ({
  kind: k.kind,
  re: new RegExp(`${CLAUSE}${VERBS}\\s+${BETWEEN}(?:${k.objects.join('|')})\\b(?![-'])`, 'i'),
}));
/**
 * Some work is asked for by its verb: deploying and scaling ("deploy the fix to staging", "roll it
 * out", "scale queryd to 6", "ship it to prod"; not "deploy went out at 14:02", where the word names
 * the event), and logging ("log the batch id when it fails").
 */
const ASKED_BY_VERB = [
  {
    kind: 'deploy',
    re: new RegExp(
      `${CLAUSE}(?:deploy\\s+(?:it|this|that|these|them|the|a|an|my|our|[\\w.-]+\\s+to)\\b|roll\\s+(?:it|this|that|them)\\s+out\\b|roll\\s+out\\s+(?:the|a|it|this|that)\\b|scale\\s+(?:up\\s+|down\\s+)?[\\w.-]+\\s+(?:to|up|down)\\b|ship\\s+(?:it|this|that|the\\s+[\\w.-]+)\\s+to\\s+(?:prod|production|staging)\\b)`,
      'i',
    ),
  },
  // Not logging a user in or out ("log the user out when the token expires").
  {
    kind: 'log',
    re: new RegExp(
      `${CLAUSE}log\\s+(?:the|a|an|every|each|its|their|which|what|when|how)\\b(?!(?:\\s+[\\w-]+){0,2}\\s+(?:out|off)\\b|(?:\\s+[\\w-]+)?\\s+users?\\s+(?:back\\s+)?in\\b)`,
      'i',
    ),
  },
];

const NAMED = KINDS.map((k) => ({ kind: k.kind, stems: new Set(k.named.map(stemOf)) }));

/** The kinds of work a prompt asks for (the first 2,000 characters read). */
export function askedWork(prompt: string): Set<string> {
  const text = prompt.slice(0, 2000);
  return new Set([...ASKED, ...ASKED_BY_VERB].filter((a) => a.re.test(text)).map((a) => a.kind));
}

/** The kinds of work a note is named for, from the stems of its name (or title). */
export function workOf(nameStems: ReadonlySet<string>): Set<string> {
  return new Set(NAMED.filter((n) => [...n.stems].some((s) => nameStems.has(s))).map((n) => n.kind));
}

/** The name stems of a kind of work (`test` for tests). */
export function workStems(kind: string): ReadonlySet<string> {
  return NAMED.find((n) => n.kind === kind)?.stems ?? new Set();
}
