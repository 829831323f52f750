/**
 * A credential named by the variable that holds it, as prompts name one: `STRIPE_WEBHOOK_SECRET`, `$DB_PASSWORD`, `API_KEY`,
 * `AWS_ACCESS_KEY_ID` (asked-work.ts reads such a prompt as handling a credential). Pure.
 */

/**
 * The last words of a variable that holds a credential: a secret's word after another word (`…_SECRET`, `DB_PASSWORD_FILE`), or
 * a key's kind before KEY, alone too (`API_KEY`, `AWS_ACCESS_KEY_ID`, `SECRET_KEY_BASE`).
 */
const CREDENTIAL = String.raw`(?:[A-Z][A-Z0-9]*_)+(?:SECRETS?|TOKENS?|PASSWORDS?|PASSWD|PWD|CREDENTIALS|APIKEY)(?:_(?:ID|BASE|FILE))?`;
const CREDENTIAL_KEY = String.raw`(?:[A-Z][A-Z0-9]*_)*(?:API|SECRET|ACCESS|PRIVATE|SIGNING|AUTH|CLIENT|MASTER|ENCRYPTION|LICENSE)_KEY(?:_(?:ID|BASE|FILE))?`;
/** A word in it that makes it a limit, a kind of token, a flow or an error, not a credential (`MAX_TOKENS`, `RESET_PASSWORD`). */
const NOT_CREDENTIAL = String.raw`(?<![A-Z0-9])(?:MAX|MIN|NUM|COUNT|LIMIT|PAD|EOS|BOS|UNK|SEP|CLS|MASK|IDENT|RESET|FORGOT|CHANGE|INVALID|EXPIRED|MISSING|PAGE|NEXT|PREV|CSRF|XSRF)_`;

/**
 * Upper-case words joined by underscores, the last a secret's word, or a key's kind before KEY (a `SEARCH_KEY` is none); not a
 * limit, a kind or a flow named with one (`MAX_TOKENS`, `PAD_TOKEN`, `RESET_PASSWORD`). Case matters: `db_password` is as
 * likely a column. The name is the request's `verb` group (requests.ts reads a denial before it).
 */
export const CREDENTIAL_VARIABLE_RE = new RegExp(`(?<!\\w)(?<verb>${CREDENTIAL}|${CREDENTIAL_KEY})(?!\\w)(?<!${NOT_CREDENTIAL}\\w+)`, 'dg');
