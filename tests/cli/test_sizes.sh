#!/usr/bin/env bash
# The size rules (docs/developer/conventions.md): no C function of src/ or include/ over 100
# lines (from its first line to its closing brace), no struct over 40 fields (a struct declared
# inside another is one field of it), bar the entries of tests/cli/size-allow.txt, which may not
# grow and must go once within the limit (tools/check-size). Then the checker runs on a copy of
# the tree with planted violations (an unlisted 101-line function, one behind an attribute, a
# listed one grown, a 42-field struct, a stale entry) and must report each of them, and only
# them (a 100-line function and a struct of 39 fields with a 30-field struct inside are within
# the limits).
source "$(dirname "$0")/lib.sh"

CHECK=$SRC/tools/check-size
if "$CHECK" --root "$SRC" > violations.txt 2>&1; then
    pass "no function over 100 lines or struct over 40 fields outside tests/cli/size-allow.txt" \
        "($(grep -c '^function' "$SRC/tests/cli/size-allow.txt") functions and" \
        "$(grep -c '^struct' "$SRC/tests/cli/size-allow.txt") structs listed)"
else
    fail "the size rules are broken:
$(cat violations.txt)"
fi

# body N: N lines of statements (braces and comment markers in strings and comments included)
body() {
    local i
    echo '    int x = 0; /* } { */'
    echo '    const char *s = "}\"{";'
    echo "    char c = '}';"
    for ((i = 4; i <= $1; i++)); do echo "    x += (int)s[0] + c; // }"; done
    echo '    return x;'
}

# fn NAME LINES: a clang-formatted function definition of LINES lines in all
fn() {
    printf 'static int %s(const char *a,\n' "$1"
    printf '                  int b)\n{\n'
    body $(($2 - 5))
    printf '}\n\n'
}

# fields N PREFIX: N one-line member declarations
fields() {
    local i
    for ((i = 1; i <= $1; i++)); do echo "    int $2$i; /* a; b; */"; done
}

mkdir -p planted
cp -r "$SRC/src" "$SRC/include" planted/
cp "$SRC/tests/cli/size-allow.txt" planted/allow.txt
{
    fn planted_long 101
    fn planted_edge 100
    fn planted_grown 120
    printf '__attribute__((optimize("no-tree-vectorize")))\n'
    fn planted_attr 100 # 101 lines with its attribute's line
    echo 'struct planted_wide {'
    fields 39 w
    echo '    struct {'
    fields 50 i
    echo '    } inner;'
    echo '    double a, b;'
    echo '};'
    echo 'typedef struct {'
    fields 38 n
    echo '    struct planted_sub {'
    fields 30 s
    echo '    } sub;'
    echo '    int (*cb)(int a, int b);'
    echo '} planted_narrow;'
} > planted/src/rng/planted.c
{
    echo 'function src/rng/planted.c planted_grown 110'
    echo 'function src/rng/planted.c planted_gone 150'
} >> planted/allow.txt
"$CHECK" --root planted --allow planted/allow.txt > planted.txt 2>&1
rc=$?
[ "$rc" -eq 1 ] && pass "the planted violations fail the check (exit 1)" ||
    fail "the check of the planted tree exited $rc: $(cat planted.txt)"
for want in 'src/rng/planted.c:1: function planted_long has 101 lines' \
    'function planted_grown has grown to 120 lines (listed with 110' \
    'function planted_attr has 101 lines' 'struct planted_wide has 42 fields' \
    'struct planted_wide.inner has 50 fields' \
    'function planted_gone of src/rng/planted.c is within the limit now (or gone)'; do
    grep -qF "$want" planted.txt && pass "a planted violation is found: $want" ||
        fail "a planted violation is missed: $want (found: $(cat planted.txt))"
done
n=$(grep -c . planted.txt)
[ "$n" -eq 6 ] && pass "nothing else is reported (a 100-line function, 39 fields, embedded 30)" ||
    fail "the planted tree gives $n reports, expected 6: $(cat planted.txt)"

finish
