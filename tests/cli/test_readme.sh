#!/usr/bin/env bash
# The README's option reference is generated from the schema table: it must be exactly what
# `crawlsim help config --markdown` prints (regenerate with tools/update-readme).
source "$(dirname "$0")/lib.sh"
"$BIN" help config --markdown > expected.md || fail "help config --markdown"
sed -n '/<!-- BEGIN OPTIONS -->/,/<!-- END OPTIONS -->/p' "$SRC/README.md" | sed '1d;$d' > actual.md
if diff -u expected.md actual.md > diff.txt; then
    pass "README option reference matches the schema"
else
    fail "README option reference is stale (run tools/update-readme): $(head -20 diff.txt)"
fi
# every command has a --help and the README mentions it
for cmd in gen info import partition run compare help; do
    "$BIN" "$cmd" --help > /dev/null || fail "$cmd --help"
    grep -q "crawlsim $cmd" "$SRC/README.md" && pass "README documents $cmd" || fail "README lacks crawlsim $cmd"
done
finish
