#!/usr/bin/env python3
"""Build the training corpus for recall's word-vector experiment from public developer text.

Usage: python3 scripts/vectors/build-corpus.py OUT_DIR [--repo DIR] [--scale F]

Writes OUT_DIR/corpus.txt (one paragraph per line, lower-cased words of [a-z0-9] separated by
single spaces) and OUT_DIR/manifest.json (every input source, its files and bytes, the Debian
package versions, the corpus's sha256), so a maintainer can rerun it and see what changed.

The inputs, all public developer text that a Debian 12 machine with these packages has:
  man        English man pages, /usr/share/man/man1..man8/*.gz (troff, macros stripped here)
  doc-text   /usr/share/doc/<package>/ README*, NEWS*, *.md, *.txt, *.rst, upstream changelog
             (never copyright files or Debian's own changelog.Debian)
  doc-html   the HTML manuals of the doc packages listed in DOC_PACKAGES (git-doc, cargo-doc,
             rust-doc's books, python3.11-doc, postgresql-doc-15, nodejs-doc, docker-doc ...);
             rust-doc's generated API reference (std/core/alloc/...) is left out: it is 500 MB of
             repeated signatures
  npm-docs   the docs and READMEs of the globally installed npm (/usr/lib/node_modules)
  node-pkgs  README/markdown of the packages in the repository's node_modules (after `npm ci`)
Install the doc packages first:
  apt-get install -y --no-install-recommends manpages-dev git-doc cargo-doc rust-doc \
    python3.11-doc postgresql-doc-15 docker-doc golang-1.19-doc
  plus nodejs-doc only where node itself comes from Debian: apt removes a NodeSource `nodejs` to
  install it. The measured corpus had it (manifest.json lists what a run found).

Duplicate paragraphs (licence blocks, boilerplate) are kept once. Each source has a byte budget so
no single manual (Python's is the largest) outweighs the others; files are visited in sorted
order, so two runs on the same packages give the same corpus.
"""
import argparse
import gzip
import hashlib
import html.parser
import json
import os
import re
import subprocess
import sys

DOC_PACKAGES = [
    'manpages',
    'manpages-dev',
    'git-doc',
    'cargo-doc',
    'rust-doc',
    'python3.11-doc',
    'postgresql-doc-15',
    'nodejs-doc',
    'docker-doc',
    'golang-1.19-doc',
]

# Byte budget of the normalised text taken from each source (MB).
BUDGET_MB = {'man': 22, 'doc-text': 10, 'doc-html': 30, 'npm-docs': 2, 'node-pkgs': 6}
# Budget of one package (MB): the folder under /usr/share/doc or node_modules a file sits in.
GROUP_MB = {'man': 99, 'doc-text': 1.5, 'doc-html': 7, 'npm-docs': 99, 'node-pkgs': 0.3}
# Largest single file read (bytes of raw text): changelogs of big projects run to megabytes.
MAX_FILE = 400_000
# rust-doc's API reference folders, left out (see above).
RUST_API = re.compile(r'/rust-doc/html/(std|core|alloc|proc_macro|test|implementors|src|search-index|static\.files)/')

WORD_RE = re.compile(r'[a-z0-9]+')


def normalise(text):
    """Lower-cased words of letters and digits; pure numbers and very long tokens (hashes) dropped."""
    out = []
    for w in WORD_RE.findall(text.lower()):
        if len(w) > 30 or w.isdigit():
            continue
        out.append(w)
    return out


def group_of(path):
    m = re.search(r'/usr/share/doc/([^/]+)/|/node_modules/((?:@[^/]+/)?[^/]+)/', path)
    return (m.group(1) or m.group(2)) if m else ''


def read_bytes(path):
    try:
        if path.endswith('.gz'):
            with gzip.open(path, 'rb') as f:
                return f.read(MAX_FILE)
        with open(path, 'rb') as f:
            return f.read(MAX_FILE)
    except (OSError, EOFError, gzip.BadGzipFile):
        return b''


# --- troff ----------------------------------------------------------------------------------------

ESCAPES = re.compile(
    r'\\(?:f(?:\[[^\]]*\]|\(..|.)|[*n](?:\[[^\]]*\]|\(..|.)|s[+-]?\d+|\(..|\[[^\]]*\]|[&|^%c:~ 0])'
)
# Requests and man/mdoc macros that carry no prose.
NO_TEXT = set(
    'sp nf fi if ie el de nr ds ft br in ti ne na ad hy nh ta tr so ig rm ll ps vs bp ce cu ul tm ev '
    'PD TH Dd Dt Os Bk Ek Bl El Bd Ed RS RE PP LP P HP UC DT ft IX ns rs mso EX EE UR UE MT ME SY YS'.split()
)
MDOC_CALL = re.compile(r'^[A-Z][a-z]{1,2}$')


def troff_text(raw):
    lines = []
    for line in raw.split('\n'):
        if line.startswith('.so ') or line.startswith("'so "):
            return ''  # a redirect to another page, which is read on its own
        if line.startswith('.\\"') or line.startswith("'\\\"") or line.startswith('.\\}'):
            continue
        if line[:1] in ('.', "'"):
            parts = line[1:].split(None, 1)
            if not parts or parts[0] in NO_TEXT or parts[0].startswith('\\'):
                if line.strip() in ('.sp', '.PP', '.LP', '.P', '.Pp'):
                    lines.append('')
                continue
            rest = parts[1] if len(parts) > 1 else ''
            rest = ' '.join(t for t in rest.split() if not MDOC_CALL.match(t))
            if parts[0] in ('SH', 'SS', 'Sh', 'Ss', 'Pp', 'TP', 'IP', 'It'):
                lines.append('')
            line = rest
        line = line.replace('\\-', '-').replace('\\e', '\\')
        lines.append(ESCAPES.sub(' ', line).replace('"', ' '))
    return '\n'.join(lines)


# --- HTML -----------------------------------------------------------------------------------------


class TextOf(html.parser.HTMLParser):
    SKIP = {'script', 'style', 'nav', 'head', 'header', 'footer'}
    BLOCK = {'p', 'div', 'li', 'pre', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'dt', 'dd', 'tr', 'br', 'section', 'table'}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skip += 1
        elif tag in self.BLOCK:
            self.parts.append('\n\n')

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.skip:
            self.skip -= 1
        elif tag in self.BLOCK:
            self.parts.append('\n\n')

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def html_text(raw):
    p = TextOf()
    try:
        p.feed(raw)
        p.close()
    except Exception:  # malformed markup: keep what was read
        pass
    return ''.join(p.parts)


# --- sources --------------------------------------------------------------------------------------


def walk(root, keep):
    found = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            if os.path.isfile(path) and keep(path):
                found.append(path)
    return found


def man_files():
    files = []
    for section in range(1, 9):
        d = f'/usr/share/man/man{section}'
        if os.path.isdir(d):
            files += [os.path.join(d, n) for n in sorted(os.listdir(d)) if not os.path.islink(os.path.join(d, n))]
    return [(f, 'troff') for f in files]


TEXT_NAME = re.compile(r'^(readme|news|changelog)([._-].*)?$|\.(md|markdown|txt|rst)(\.gz)?$', re.I)


def doc_text_files():
    def keep(path):
        name = os.path.basename(path)
        if 'copyright' in name.lower() or name.lower().startswith('changelog.debian'):
            return False
        if '/html/' in path or RUST_API.search(path):
            return False
        return bool(TEXT_NAME.search(name))

    return [(f, 'text') for f in walk('/usr/share/doc', keep)]


def doc_html_files():
    def keep(path):
        if not re.search(r'\.html?(\.gz)?$', path) or RUST_API.search(path):
            return False
        # git-doc ships each manual as .txt (read under doc-text) and .html: keep one.
        stem = re.sub(r'\.html?(\.gz)?$', '', path)
        return not (os.path.exists(stem + '.txt') or os.path.exists(stem + '.txt.gz'))

    return [(f, 'html') for f in walk('/usr/share/doc', keep)]


def npm_doc_files():
    root = '/usr/lib/node_modules'
    return [(f, 'text') for f in walk(root, lambda p: bool(re.search(r'\.md$', p, re.I)))] if os.path.isdir(root) else []


def node_pkg_files(repo):
    root = os.path.join(repo, 'node_modules')
    if not os.path.isdir(root):
        return []
    return [(f, 'text') for f in walk(root, lambda p: bool(re.search(r'(^|/)readme[^/]*$|\.md$', p, re.I)))]


def package_versions():
    try:
        out = subprocess.run(
            ['dpkg-query', '-W', '-f', '${Package}\t${Version}\t${Status}\n', *DOC_PACKAGES],
            capture_output=True,
            text=True,
        ).stdout
    except OSError:
        return {}
    return {p: v for p, v, s in (l.split('\t') for l in out.splitlines() if l.count('\t') == 2) if 'installed' in s}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('--repo', default=os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..')))
    ap.add_argument('--scale', type=float, default=1.0, help='multiply every byte budget by this factor')
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    sources = {
        'man': man_files(),
        'doc-text': doc_text_files(),
        'doc-html': doc_html_files(),
        'npm-docs': npm_doc_files(),
        'node-pkgs': node_pkg_files(args.repo),
    }
    seen_files = set()
    seen_paras = set()
    manifest = {'packages': package_versions(), 'sources': {}}
    digest = hashlib.sha256()
    with open(os.path.join(args.out, 'corpus.txt'), 'w') as out:
        for name, files in sources.items():
            budget = BUDGET_MB[name] * args.scale * 1_000_000
            used = 0
            taken = 0
            per_group = {}
            for path, kind in files:
                if used >= budget:
                    break
                group = group_of(path)
                if per_group.get(group, 0) >= GROUP_MB[name] * args.scale * 1_000_000:
                    continue
                raw = read_bytes(path)
                if not raw:
                    continue
                h = hashlib.sha1(raw).digest()
                if h in seen_files:
                    continue
                seen_files.add(h)
                text = raw.decode('utf-8', 'replace')
                if kind == 'troff':
                    text = troff_text(text)
                elif kind == 'html':
                    text = html_text(text)
                took = False
                for para in re.split(r'\n\s*\n', text):
                    words = normalise(para)
                    if len(words) < 4:
                        continue
                    line = ' '.join(words)
                    ph = hashlib.sha1(line.encode()).digest()
                    if ph in seen_paras:
                        continue
                    seen_paras.add(ph)
                    out.write(line + '\n')
                    digest.update(line.encode() + b'\n')
                    used += len(line) + 1
                    per_group[group] = per_group.get(group, 0) + len(line) + 1
                    took = True
                taken += took
            manifest['sources'][name] = {'files_seen': len(files), 'files_used': taken, 'bytes': used}
            print(f'{name:10s} {taken:6d}/{len(files):6d} files  {used / 1e6:6.1f} MB', file=sys.stderr)
    manifest['sha256'] = digest.hexdigest()
    with open(os.path.join(args.out, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=2)
        f.write('\n')
    print(f"corpus sha256 {manifest['sha256']}", file=sys.stderr)


if __name__ == '__main__':
    main()
