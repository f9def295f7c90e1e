#!/usr/bin/env python3
"""Builds a bag-of-words corpus from the manual pages of Debian's manpages-dev package (sections 2
and 3), one document per page, in the UCI docword format with a vocabulary file, for the SVI/LDA
example and benchmark (docs/systems.md A).

Usage: scripts/build_manpages_corpus.py OUT_DIR [--min-docs 5] [--max-doc-fraction 0.5]
Writes OUT_DIR/docword.manpages.txt, OUT_DIR/vocab.manpages.txt and OUT_DIR/titles.manpages.txt.

Pages: every regular file `dpkg -L manpages-dev` lists under /usr/share/man/man2 or man3 (gzip),
in sorted path order; a page whose source is only a `.so` redirect is skipped (it is another page's
alias). Tokenisation rule (stated once, applied to the roff source):
  1. lines starting with a roff request ('.' or "'") are dropped, except the text arguments of
     .SH/.SS/.B/.I/.BR/.IR/.RB/.RI/.BI/.IB/.TP/.IP headings and font macros, which are kept;
  2. roff escapes are removed: \\f[BIRP] and \\f(xx font changes, \\(xx and \\[xxx] special
     characters, \\*x strings, \\& and \\- become a space;
  3. the text is lowercased and split into tokens = maximal runs of ASCII letters, digits and '_'
     that start with a letter; tokens shorter than 3 characters and a fixed English stop list are dropped;
  4. words occurring in fewer than --min-docs documents or in more than --max-doc-fraction of them are
     dropped; documents left empty are dropped.
Word ids follow the sorted vocabulary; document ids follow the page order.
"""
import argparse
import gzip
import os
import re
import subprocess
import sys

STOP = set("""the and for are but not you all any can had her was one our out has have this that with from
they will would there their what about which when make like time just him know take into year your
some could them see other than then now look only come its over think also back after use two how
work first well way even new want because these give day most is it of to in on be as by or an at if
may must such each per see via none where while should shall been being were who whom does done did
""".split())
FONT = re.compile(r"^\.(SH|SS|B|I|BR|IR|RB|RI|BI|IB|TP|IP)\b\s*(.*)$")
ESC = re.compile(r"\\f\(..|\\f\[[^\]]*\]|\\f.|\\\(..|\\\[[^\]]*\]|\\\*\(..|\\\*\[[^\]]*\]|\\\*.|\\&|\\-|\\e|\\.")
TOKEN = re.compile(r"[a-z][a-z0-9_]*")


def pages():
    try:
        out = subprocess.run(["dpkg", "-L", "manpages-dev"], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        sys.exit("build_manpages_corpus.py: manpages-dev is not installed (apt-get install manpages-dev)")
    paths = [p for p in out.split("\n") if re.match(r"^/usr/share/man/man[23]/[^/]+\.gz$", p)]
    return sorted(p for p in paths if os.path.isfile(p) and not os.path.islink(p))


def tokens(source):
    text = []
    for line in source.splitlines():
        if line.startswith(".so "):
            return None
        if line.startswith(".") or line.startswith("'"):
            m = FONT.match(line)
            if not m:
                continue
            line = m.group(2)
        text.append(ESC.sub(" ", line))
    toks = TOKEN.findall(" ".join(text).lower())
    return [t for t in toks if len(t) >= 3 and t not in STOP]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--min-docs", type=int, default=5)
    ap.add_argument("--max-doc-fraction", type=float, default=0.5)
    a = ap.parse_args()
    docs, titles = [], []
    for p in pages():
        with gzip.open(p, "rt", encoding="utf-8", errors="replace") as f:
            t = tokens(f.read())
        if t:
            docs.append(t)
            titles.append(os.path.basename(p)[:-3])
    df = {}
    for d in docs:
        for w in set(d):
            df[w] = df.get(w, 0) + 1
    keep = sorted(w for w, n in df.items() if n >= a.min_docs and n <= a.max_doc_fraction * len(docs))
    wid = {w: i + 1 for i, w in enumerate(keep)}
    rows, kept_titles = [], []
    for title, d in zip(titles, docs):
        counts = {}
        for w in d:
            if w in wid:
                counts[wid[w]] = counts.get(wid[w], 0) + 1
        if counts:
            rows.append(counts)
            kept_titles.append(title)
    os.makedirs(a.out_dir, exist_ok=True)
    nnz = sum(len(r) for r in rows)
    with open(os.path.join(a.out_dir, "docword.manpages.txt"), "w") as f:
        f.write(f"{len(rows)}\n{len(keep)}\n{nnz}\n")
        for i, r in enumerate(rows, 1):
            for w in sorted(r):
                f.write(f"{i} {w} {r[w]}\n")
    with open(os.path.join(a.out_dir, "vocab.manpages.txt"), "w") as f:
        f.write("\n".join(keep) + "\n")
    with open(os.path.join(a.out_dir, "titles.manpages.txt"), "w") as f:
        f.write("\n".join(kept_titles) + "\n")
    tokens_total = sum(sum(r.values()) for r in rows)
    print(f"{len(rows)} documents, {len(keep)} words, {nnz} entries, {tokens_total} tokens -> {a.out_dir}")


if __name__ == "__main__":
    main()
