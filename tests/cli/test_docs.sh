#!/usr/bin/env bash
# The documentation: the generated reference (docs/reference/config.md, commands.md) must be
# exactly what tools/update-docs makes from this binary; every command's --help works and is in
# docs/reference/commands.md; README.md, every guide page, docs/performance.md and
# docs/developer/architecture.md stay at most 15 000 bytes; every relative Markdown link in
# README.md and docs/ points to an existing file, and to an existing heading when it has an
# #anchor; docs/ and the sources name no issue number, commit hash or load-average figure (history
# is in the commit messages, measurements in results tables); every CRAWLSIM_* environment
# variable the code reads is documented in docs/reference/environment.md.
source "$(dirname "$0")/lib.sh"

# 1. the generated reference is up to date
if bash "$SRC/tools/update-docs" "$BIN" gen > update.log 2>&1; then
    for f in config.md commands.md; do
        if diff -u "$SRC/docs/reference/$f" "gen/$f" > "diff.$f"; then
            pass "docs/reference/$f matches the binary"
        else
            fail "docs/reference/$f is stale (run tools/update-docs build/crawlsim): $(head -20 "diff.$f")"
        fi
    done
else
    fail "tools/update-docs failed: $(cat update.log)"
fi

# 2. every command has a working --help, documented in the command reference
commands=$("$BIN" --help | sed -n 's/^  crawlsim \([a-z][a-z-]*\).*/\1/p')
for c in gen info import partition run schedule bandit compare help; do
    grep -qx "$c" <<< "$commands" || fail "crawlsim --help does not list $c"
done
for c in $commands; do
    if "$BIN" "$c" --help > "help.$c" 2>&1 && grep -q "^usage: crawlsim $c" "help.$c"; then
        pass "crawlsim $c --help"
    else
        fail "crawlsim $c --help: $(head -3 "help.$c")"
    fi
    grep -qx "## crawlsim $c" "$SRC/docs/reference/commands.md" && pass "commands.md documents $c" ||
        fail "docs/reference/commands.md lacks crawlsim $c"
done

# every policy the schema accepts (run.policy, refresh.policy: made from the registries) has its
# own line in run --help, with a summary
for sec in run refresh; do
    choices=$("$BIN" help config $sec | sed -n 's/^  policy  *choice default [a-z-]*  *//p' | tr '|' ' ')
    [ -n "$choices" ] || fail "no $sec.policy choices in crawlsim help config $sec"
    for p in $choices; do
        if [ "$p" = none ] || grep -Eq "^  $p +[A-Za-z]" help.run; then
            pass "run --help lists $sec.policy $p"
        else
            fail "run --help lacks a line for $sec.policy $p"
        fi
    done
done

# 3. the README, the guides, the performance page and the architecture stay short
for f in "$SRC/README.md" "$SRC"/docs/guide/*.md "$SRC/docs/performance.md" \
    "$SRC/docs/developer/architecture.md"; do
    size=$(wc -c < "$f")
    if [ "$size" -le 15000 ]; then
        pass "${f#"$SRC"/} is $size bytes (<= 15000)"
    else
        fail "${f#"$SRC"/} is $size bytes, more than 15000: split the page, or move measurements to docs/reports"
    fi
done

# 4. relative links and their anchors
if python3 - "$SRC" > links.txt 2>&1 << 'PY'; then
import os, re, sys

root = sys.argv[1]
files = [os.path.join(root, "README.md")]
for d, _, names in os.walk(os.path.join(root, "docs")):
    files += [os.path.join(d, n) for n in sorted(names) if n.endswith(".md")]

def prose(text):
    """The text outside fenced code blocks, line by line (inline code spans removed)."""
    out, fence = [], False
    for line in text.split("\n"):
        if re.match(r"^\s*(```|~~~)", line):
            fence = not fence
            out.append("")
            continue
        out.append("" if fence else re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line))
    return out

def slug(heading):
    """GitHub's anchor of a heading: rendered text, lower case, punctuation dropped, spaces to -."""
    t = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    t = t.replace("`", "").strip().lower()
    t = re.sub(r"[^\w\- ]", "", t)
    return t.replace(" ", "-")

anchors = {}
def anchors_of(path):
    if path not in anchors:
        seen, out, fence = {}, set(), False
        for line in open(path, encoding="utf-8").read().split("\n"):
            if re.match(r"^\s*(```|~~~)", line):
                fence = not fence
                continue
            m = None if fence else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                out.add(s if n == 0 else f"{s}-{n}")
        anchors[path] = out
    return anchors[path]

bad = checked = 0
for f in files:
    for no, line in enumerate(prose(open(f, encoding="utf-8").read()), 1):
        for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # http:, https:, mailto:
            checked += 1
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            where = f"{os.path.relpath(f, root)}:{no}: {target}"
            if not os.path.exists(dest):
                print(f"missing file: {where}")
                bad += 1
            elif anchor and (not dest.endswith(".md") or anchor not in anchors_of(dest)):
                print(f"missing heading: {where}")
                bad += 1
print(f"{checked} relative links in {len(files)} files, {bad} broken")
sys.exit(1 if bad else 0)
PY
    pass "$(tail -1 links.txt)"
else
    fail "broken links: $(head -30 links.txt)"
fi
# 5. no lab notebook: issue numbers, commit hashes and load-average figures stay out of docs/
# (Markdown and text pages) and the sources (src/, include/); a results table (.tsv) may keep a
# commit and a load column. A commit hash is a word of 7 to 12 hexadecimal digits with a letter
# and a digit, not part of a number (3.91256303526217e-3 is not one).
if python3 - "$SRC" > notebook.txt 2>&1 << 'PY'; then
import os, re, sys

root = sys.argv[1]
issue = re.compile(r"\b[Ii]ssues? ?#?\d+|\(#\d+\)|\bthe issue's\b|\bthe issue (names|quotes|sets)\b")
load = re.compile(r"\bload\s+averages?\b[^.;:|]{0,24}?\d|\bload\s+\d+(\.\d+)?\s*(-|to)\s*\d|\bunder\s+load\s+\d")
sha = re.compile(r"(?<![\w.+-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,12}(?![\w+-]|[.]\d)")
bad = 0
for top, exts in (("docs", (".md", ".txt")), ("src", (".c", ".h", ".def")),
                  ("include", (".h",)), (".", ("README.md",))):
    base = os.path.join(root, top)
    walk = [(base, [], ["README.md"])] if top == "." else os.walk(base)
    for d, _, names in walk:
        for n in sorted(names):
            if not n.endswith(exts):
                continue
            path = os.path.join(d, n)
            text = open(path, encoding="utf-8", errors="replace").read()
            for what, rx in (("issue number", issue), ("load average", load),
                             ("commit hash", sha)):
                for m in rx.finditer(text):  # over line breaks: "load\naverage 5"
                    no = text.count("\n", 0, m.start()) + 1
                    print(f"{os.path.relpath(path, root)}:{no}: {what} '{m.group(0)}'")
                    bad += 1
print(f"{bad} issue numbers, commit hashes or load averages in docs/, src/, include/")
sys.exit(1 if bad else 0)
PY
    pass "$(tail -1 notebook.txt)"
else
    fail "history in docs or sources (put it in the commit message): $(head -20 notebook.txt)"
fi

# 6. every CRAWLSIM_* variable the code reads has a row in docs/reference/environment.md
vars=$(grep -rhoE 'getenv\("CRAWLSIM_[A-Z0-9_]+"\)' "$SRC/src" "$SRC/include" "$SRC/tests/fuzz" |
    sed 's/getenv("\(.*\)")/\1/' | sort -u)
[ -n "$vars" ] || fail "no getenv(\"CRAWLSIM_...\") found in the sources"
for v in $vars; do
    if grep -q "^| \`$v\` |" "$SRC/docs/reference/environment.md"; then
        pass "$v is documented"
    else
        fail "$v is read by the code but not documented in docs/reference/environment.md"
    fi
done

finish
