/**
 * The kinds of work an edit's code does (call-work.ts): handling an error, logging, defining a metric,
 * changing a database column. Read from the lines it adds (and for a column, those it drops), code
 * lines only, never comments. Pure.
 */
import type { ToolAction } from './tool-call.js';

/**
 * Lines an edit adds that handle an error: Go's checks and wrapping, panics, raising (a statement of
 * its own: "raise the pool size" in a string is none) and catching.
 */
const ERROR_RE =
  /\berr\s*!=\s*nil\b|\bfmt\.Errorf\(|\berrors\.(?:New|Wrap\w*|Join)\(|\bpanic!?\(|(?:^|\n|;)\s*raise\b|\bthrow\s+new\b|\bexcept\s+\w*(?:Error|Exception)|\bcatch\s*\(/;
/**
 * A web handler's error response (`status: :unprocessable_entity`, `res.status(404)`,
 * `HTTPException(`). Outside tests only: a test's fixture or mock (`{ status: 404 }`) replies nothing.
 */
const ERROR_REPLY_RE =
  /\bstatus(?:Code)?\s*[:=(]\s*(?:4\d\d|5\d\d)\b|\bstatus:\s*:(?:unprocessable_entity|not_found|bad_request|forbidden|unauthorized|conflict|internal_server_error)\b|\bHTTPException\(|\bResponseStatusException\(/;
/** Rust's own: unwraps, expects, anyhow. Only in Rust: `.expect(200)` is a JS test's assertion, `.context(` a JS API's. */
const RUST_ERROR_RE = /\.unwrap\(\)|\.expect\(|\bunreachable!|\banyhow!|\bbail!\(|\.(?:with_)?context\(/;
/**
 * A line that is all comment (`//`, `#` but not Rust's `#[attr]`, `/*`, a block comment's `* …`):
 * what it says is not done. Not Rust's `*slot = next.unwrap();` nor JS's `--count;`.
 */
const COMMENT_LINE_RE = /^\s*(?:\/\/|#(?![[!])|\/\*|\*(?=\s|\/|$))/;
/** Lines an edit adds that log: a logger's level method, Rust's logging macros, the console. */
const LOG_RE =
  /\b(?:log|logger|slog|zap|zerolog|logrus|logging|logx|tracing)\s*(?:\.|::)\s*(?:info|warn|warning|error|debug|trace|fatal|print\w*|log)\w*\s*\(|\b(?:info|warn|error|debug|trace)!\s*\(|\bconsole\.(?:log|warn|error|info|debug)\(|\b(?:Log|Timber)\.(?:v|d|i|w|e|wtf)\(/i;
/** A log call at error level (`log.Error(`, `logger.error(`, `error!(`). */
const ERROR_LOG_RE = /(?:\.|::)\s*error\w*\s*\(|\berror!\s*\(/i;

/** The lines of a text that are code, not comments. */
const codeLines = (text: string): string =>
  text
    .split('\n')
    .filter((l) => !COMMENT_LINE_RE.test(l))
    .join('\n');

/** The added lines that log. */
function loggedLines(added: string): string[] {
  return added.split('\n').filter((l) => LOG_RE.test(l));
}

/**
 * Whether a log line logs only identifiers and counts besides its message: every name it passes is an
 * id, a count, a size or a duration (`invoice_id`, `ev.Id`, `len(batch)`, `proto.Size(b)`,
 * `time.Since(start)`, `n`), every other argument a literal.
 * What a template literal interpolates (`${req.body}`) is passed as much as an argument.
 */
function onlyIdentifiers(line: string): boolean {
  // What the log call passes: from its own parenthesis (`defer func() { logger.Info(…) }()` opens another first).
  const call = LOG_RE.exec(line);
  const after = call ? line.slice(call.index + call[0].length) : line.slice(line.indexOf('(') + 1);
  const interpolated = [...after.matchAll(/\$\{([^{}]{0,200})\}/g)].map((m) => m[1]!);
  // A backslash is read only as an escape: a quote's body that could also take it as a character
  // backtracks exponentially over a run of backslashes with no closing quote.
  const args = [after, ...interpolated]
    .join(' ')
    .replace(/(["'`])(?:\\.|(?!\1)[^\\])*\1/g, ' ')
    // Bounded repeats: a line is the call's text, and a long dotted run must not cost a pass per dot.
    .replace(
      /\b(?:\w{1,40}\.){0,3}(?:len|Len|count|Count|size|Size|Sizeof|Since)\(\s*[\w.]{1,200}\s*\)|\.(?:len|length|size|count|elapsed)\(\)/g,
      ' n ',
    );
  const names = args.match(/[A-Za-z_][\w.]*/g) ?? [];
  return names.every((n) => ID_NAME_RE.test(n.split('.').pop()!) || n === 'extra' || n === 'len');
}
/** A name that holds an identifier, a count, a size or a duration. */
const ID_NAME_RE =
  /^(?:id|ids|n|count|total|size|len|length|elapsed|duration|latency|took|uptime|\w*(?:_id|_ids|Id|ID|Ids|_count|Count|_total|_size|Size|_len|_ms|Ms|_secs|Duration|_duration|Elapsed))$/;

/** Lines an edit adds that define or record a metric (Prometheus clients, Rust's `metrics` macros, statsd). */
const METRIC_RE =
  /\bpromauto\.|\bprometheus\.(?:New|Must)|\bNew(?:Counter|Gauge|Histogram|Summary)(?:Vec)?\(|\b(?:counter|gauge|histogram)!\(|\bstatsd\.|\bmeter\.create/;

/**
 * A database column defined or changed: an ORM's column (`mapped_column(`, `Column(`, a Django
 * `models.XField(`, a JPA `@Column`, a GORM `gorm:"column`), or a migration's column operation.
 * Such a change needs a migration, whatever file it is in: a model rename is migration work.
 */
const COLUMN_RE =
  /\bmapped_column\(|\bColumn\(|\bmodels\.\w+Field\(|@Column\b|\bgorm:"column|\b(?:add|remove|rename|change|drop|alter)_column\b/;
/** Code that enqueues a background job in any language (Sidekiq, ActiveJob, Celery). */
const JOB_RE = /\.(?:perform_async|perform_in|perform_at|perform_later|apply_async)\(/;
/**
 * Enqueueing spelt as a plain method: Celery's and Sidekiq's `.delay(`, RQ's `.enqueue(`. Not in
 * JavaScript, where `.delay(` is a promise helper or jQuery's animation and `.enqueue(` a queue's.
 */
const JOB_METHOD_RE = /\.(?:delay|enqueue)\(/;
/**
 * A user-visible text written as a literal in UI code (`Text("Browse stores")` in Compose or
 * SwiftUI), where a string resource belongs. (A layout's XML is no language file and is not read.)
 */
const UI_TEXT_RE = /\bText\(\s*"([^"\n]*)"/g;
/** The languages whose UI code calls `Text("…")` (Compose, SwiftUI); Python's `rich` Text is a terminal's. */
const UI_LANGUAGES = new Set(['kotlin', 'swift']);
/** Whether the code writes a UI literal with words in it (two letters: not `Text("%d")`); linear, one pass. */
const writesUiText = (code: string): boolean => [...code.matchAll(UI_TEXT_RE)].some((m) => /[A-Za-z]{2}/.test(m[1] ?? ''));

/** What opens a handler of its own (`} catch (err) {`, `except ValueError:`, `rescue`): a change quoted inside one handles the error. */
const HANDLER_RE = /\bcatch\s*(?:\(|\{)|^[ \t]*except\b|\brescue\b/m;

/** The kinds of work the code of an edit in a language does (see the module comment). */
export function codeKinds(action: ToolAction, added: string, languages: ReadonlySet<string>, inTests: boolean): Set<string> {
  const kinds = new Set<string>();
  const code = codeLines(added);
  const around = codeLines(`${action.context}\n${action.before}`);
  const logs = loggedLines(code);
  const handles = (text: string): boolean =>
    ERROR_RE.test(text) || (languages.has('rust') && RUST_ERROR_RE.test(text)) || (!inTests && ERROR_REPLY_RE.test(text));
  // A line logging an error where the change handles one (`if err != nil {` around it) is error
  // handling too; so is any code written inside a handler the edit quotes (`} catch (err) {`).
  if (handles(code) || (logs.some((l) => ERROR_LOG_RE.test(l)) && handles(around)) || (code.trim() !== '' && HANDLER_RE.test(around)))
    kinds.add('error');
  // A log line of identifiers and counts only is what logging rules ask for: nothing to remind of.
  // A test's prints (`console.log(result)` in a jest test) go to the developer's terminal, not
  // to the service's logs that logging rules guard.
  if (!inTests && logs.some((l) => !onlyIdentifiers(l))) kinds.add('log');
  if (METRIC_RE.test(added)) kinds.add('metric');
  if (COLUMN_RE.test(code) || COLUMN_RE.test(codeLines(action.before))) kinds.add('migration');
  if (JOB_RE.test(code) || (!languages.has('js') && JOB_METHOD_RE.test(code))) kinds.add('job');
  if ([...languages].some((l) => UI_LANGUAGES.has(l)) && writesUiText(code)) kinds.add('ui-text');
  return kinds;
}
