/**
 * HTML building blocks of `recall view`: escaping, the page frame, links, times as a person reads
 * them, and small inline SVG charts. Every piece of data (note text, prompts, ids, reasons) goes
 * through `esc`; the page's one style and one script carry the response's CSP nonce, so markup a
 * hostile note smuggles in is shown as text and could not run if it got through.
 */

/** Escapes text for an HTML text node or a double- or single-quoted attribute value. */
export function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A trusted piece of markup (built here from escaped parts), told apart from text by its type. */
export interface Html {
  readonly html: string;
}

export const raw = (html: string): Html => ({ html });

/** A template tag: interpolated values are escaped unless they are Html (or arrays of it). */
export function h(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += part(v) + strings[i + 1]!;
  });
  return raw(out);
}

function part(v: unknown): string {
  if (Array.isArray(v)) return v.map(part).join('');
  if (v && typeof v === 'object' && 'html' in v) return (v as Html).html;
  return esc(v);
}

/** What every page needs: the response's CSP nonce and the session's CSRF token (for forms that change a note). */
export interface PageCtx {
  nonce: string;
  csrf: string;
  /** The page's own time, for "today" and "yesterday" (tests fix it). */
  now: Date;
}

/** A link to a page of this view with the given query parameters (the session cookie authenticates it; no secret in a URL). */
export function href(page: string, params: Record<string, string> = {}): string {
  const q = new URLSearchParams(params).toString();
  return q ? `${page}?${q}` : page;
}

/** "1 prompt", "2 prompts". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

const DAY_MS = 86_400_000;
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A log time (local, `2026-12-05T14:03:09`) as a person reads it: "today 14:03", "yesterday 09:12",
 * "Tue 14:03" within the week, "1 Dec 14:03" this year, "1 Dec 2025 14:03" before. Text that is not
 * a time is returned as it is.
 */
export function humanTime(ts: string, now: Date): string {
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)/.exec(ts);
  if (!m) return ts;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const hm = `${m[4]}:${m[5]}`;
  const day = new Date(y, mo, d).getTime();
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  const ago = Math.round((today - day) / DAY_MS);
  if (ago === 0) return `today ${hm}`;
  if (ago === 1) return `yesterday ${hm}`;
  if (ago > 1 && ago < 7) return `${WEEKDAYS[new Date(day).getDay()]} ${hm}`;
  return `${d} ${MONTHS[mo]}${y === now.getFullYear() ? '' : ` ${y}`} ${hm}`;
}

/** A log time in a <time> element: readable text, the exact time on hover. */
export function timeTag(ts: string, now: Date): Html {
  return h`<time datetime="${ts}" title="${ts}">${humanTime(ts, now)}</time>`;
}

/** The hidden field every form that changes a note carries. */
export function csrfField(ctx: PageCtx): Html {
  return h`<input type="hidden" name="csrf" value="${ctx.csrf}">`;
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:8px 16px;display:flex;gap:18px;align-items:center;flex-wrap:wrap}
header a{color:#cfe0ff;text-decoration:none}header b{margin-right:8px}
header form{margin-left:auto}header input{padding:3px 6px;width:260px}
main{padding:12px 18px;max-width:1200px}
h1{font-size:20px;margin:8px 0 12px}h2{font-size:16px;margin:18px 0 6px}
section.session{background:#fff;border:1px solid #dde1e7;border-radius:6px;margin:10px 0;padding:8px 12px}
table{border-collapse:collapse;width:100%}td,th{text-align:left;vertical-align:top;padding:4px 6px;border-top:1px solid #eceef2}
th{font-weight:600;color:#555}.muted{color:#6b7280}.small{font-size:12px}
.used{color:#0a7a3b;font-weight:600}.unused{color:#a15c00}.abstain{color:#8a1c1c}
.note{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:10px 14px;white-space:pre-wrap}
code{background:#eef1f5;padding:0 3px;border-radius:3px}
.explain{background:#fffbe6;border:1px solid #eadb9c;border-radius:6px;padding:8px 12px;margin:8px 0}
svg text{font:11px system-ui,sans-serif;fill:#333}
.status{background:#eef3fb;border:1px solid #c9d7ee;border-radius:6px;padding:6px 10px}
.degraded{color:#8a1c1c}.num{text-align:right}.nowrap{white-space:nowrap}
.flash{background:#e8f6ee;border:1px solid #a8dbbd;border-radius:6px;padding:6px 10px}.flash.error{background:#fdeceb;border-color:#eeb4ae}
.actions{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:8px 12px;margin:12px 0}
form.action{margin:6px 0}form.filters{margin:8px 0;display:flex;gap:6px;flex-wrap:wrap}ul.sources{margin:4px 0 8px;padding-left:18px}
`;

/** Pressing "s" focuses the search box: the page's only script. */
const SCRIPT = `document.addEventListener('keydown',function(e){var q=document.getElementById('q');if(e.key==='s'&&q&&document.activeElement!==q){e.preventDefault();q.focus();}});`;

/** The page frame: navigation (with the search form) and the body. */
export function page(ctx: PageCtx, title: string, body: Html): string {
  const doc = h`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="same-origin">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · recall view</title><style nonce="${ctx.nonce}">${raw(STYLE)}</style></head>
<body><header><b>recall view</b>
<a href="/">Sessions</a><a href="/notes">Notes</a><a href="/days">Totals per day</a><a href="/search">Search</a>
<form action="/search" method="get"><input id="q" name="q" placeholder="search the KB (press s)" aria-label="search the KB"></form>
</header><main>${body}</main><script nonce="${ctx.nonce}">${raw(SCRIPT)}</script></body></html>
`;
  return doc.html;
}

/** A small bar chart (inline SVG) of one value per label. */
export function barChart(title: string, rows: readonly { label: string; value: number }[], color = '#3b6fd8'): Html {
  const width = 560;
  const height = 150;
  const pad = 24;
  const max = Math.max(1, ...rows.map((r) => r.value));
  const bw = rows.length ? Math.min(40, (width - 2 * pad) / rows.length - 4) : 0;
  const bars = rows.map((r, i) => {
    const x = pad + i * (bw + 4);
    const bh = Math.round(((height - 2 * pad) * r.value) / max);
    const y = height - pad - bh;
    return h`<rect x="${x}" y="${y}" width="${bw}" height="${bh}" fill="${color}"><title>${r.label}: ${r.value}</title></rect>
<text x="${x}" y="${height - 8}">${r.label.slice(5)}</text><text x="${x}" y="${y - 3}">${r.value}</text>`;
  });
  return h`<figure><figcaption>${title}</figcaption><svg role="img" aria-label="${title}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
<line x1="${pad}" y1="${height - pad}" x2="${width - pad}" y2="${height - pad}" stroke="#999"/>${bars}</svg></figure>`;
}

/**
 * A horizontal timeline of stages (inline SVG): each bar starts where the one before ended; the
 * arms (`arm:NAME`) ran side by side, so each starts where the "arms" fan-out started.
 */
export function timeline(stages: readonly { stage: string; ms: number }[]): Html {
  const parallel = (s: { stage: string }): boolean => s.stage.startsWith('arm:');
  const total = Math.max(
    1,
    stages.reduce((n, s) => n + (parallel(s) ? 0 : s.ms), 0),
  );
  const width = 640;
  const row = 16;
  let at = 0;
  let armsAt = 0;
  const rows = stages.map((s, i) => {
    if (s.stage === 'arms') armsAt = at;
    const from = parallel(s) ? armsAt : at;
    const x = 150 + Math.round((width * from) / total);
    const w = Math.max(1, Math.min(width + 150 - x, Math.round((width * s.ms) / total)));
    if (!parallel(s)) at += s.ms;
    return h`<text x="0" y="${i * row + 12}">${s.stage}</text><rect x="${x}" y="${i * row + 3}" width="${w}" height="${row - 5}" fill="${parallel(s) ? '#9bb5ea' : '#3b6fd8'}"><title>${s.stage}: ${s.ms} ms</title></rect><text x="${x + w + 4}" y="${i * row + 12}">${s.ms} ms</text>`;
  });
  return h`<svg role="img" aria-label="stage timeline" width="${width + 220}" height="${stages.length * row + 4}">${rows}</svg>`;
}
