#!/usr/bin/env bash
# The module layering of docs/developer/modules.txt (the one table of which module may use which;
# docs/developer/architecture.md "Modules"):
#   1. the table itself has no cycle, names every folder of src/ and maps every public header;
#   2. every #include of a module's files (src/<module>/, and its headers in include/crawlsim/)
#      points to the module itself or to one the table allows (directly or through the modules
#      those may use);
#   3. no file outside src/comm, src/core and the table's `mpi` entries calls an MPI_ function;
#   4. no source or header file has more than 1 000 lines, but those listed as `long`.
# The table's `temporary` entries (dep-temp, mpi-temp, long-temp) are known violations being
# removed; an entry that is no longer needed is reported as a failure too, so that the list only
# shrinks. Then the same checks run once on a copy of the tree with one violation of each kind
# planted, and must fail: the test can fail.
source "$(dirname "$0")/lib.sh"

MAX_LINES=1000

# module_of HEADER: the module that owns include/crawlsim/HEADER (header_map: the table's lines)
declare -A header_map
module_of() {
    local m=${header_map[$1]:-}
    if [ -n "$m" ]; then echo "$m"; else echo "${1%.h}"; fi
}

# check TREE TABLE: prints one line per violation (nothing when the tree keeps the rules)
check() {
    local tree=$1 table=$2
    local modules h m
    modules=$(awk '$1 == "module" { sub(":", "", $2); print $2 }' "$table")
    header_map=()
    while read -r h m; do header_map[$h]=$m; done < <(awk '$1 == "header" { print $2, $3 }' "$table")

    # 1. the table: no cycle, every folder listed, every dependency a module, every header mapped
    if ! awk '$1 == "module" { sub(":", "", $2); print $2, $2; for (i = 3; i <= NF; i++) print $i, $2 }' \
        "$table" | tsort > /dev/null 2> tsort.err; then
        echo "table: the allowed dependencies have a cycle: $(tr '\n' ' ' < tsort.err)"
    fi
    for d in "$tree"/src/*/; do
        d=$(basename "$d")
        grep -qx "$d" <<< "$modules" || echo "table: src/$d is not a module of the table"
    done
    awk '$1 == "module" { for (i = 3; i <= NF; i++) print $i }' "$table" | sort -u |
        while read -r m; do
            grep -qx "$m" <<< "$modules" || echo "table: unknown module $m in a dependency list"
        done
    for h in "$tree"/include/crawlsim/*.h; do
        h=$(basename "$h")
        grep -qx "$(module_of "$h")" <<< "$modules" ||
            echo "table: include/crawlsim/$h belongs to no module (add a header line)"
    done

    # 2. includes. allowed: the reflexive-transitive closure of the table, plus dep-temp entries
    awk '$1 == "module" { sub(":", "", $2); for (i = 3; i <= NF; i++) e[$2] = e[$2] " " $i; m[$2] = 1 }
         $1 == "dep-temp" { t[$2 " " $3] = 1 }
         END {
             for (a in m) { r[a, a] = 1; n = split(e[a], d, " "); for (i = 1; i <= n; i++) r[a, d[i]] = 1 }
             do { changed = 0
                  for (a in m) for (b in m) if ((a, b) in r) for (c in m)
                      if ((b, c) in r && !((a, c) in r)) { r[a, c] = 1; changed = 1 }
             } while (changed)
             for (a in m) for (b in m) if ((a, b) in r) print a, b
             for (k in t) print k
         }' "$table" | sort -u > allowed.txt
    declare -A allowed=() used=()
    while read -r h; do allowed[$h]=1; done < allowed.txt
    local f mod inc to
    while IFS=: read -r f inc; do
        inc=${inc#*\"}
        inc=${inc%%\"*}
        case $f in
        "$tree"/include/*) mod=$(module_of "${f##*/}") ;;
        *)
            mod=${f%/*}
            mod=${mod##*/}
            ;;
        esac
        case $inc in
        crawlsim/*)
            to=${inc#crawlsim/}
            to=${header_map[$to]:-${to%.h}}
            ;;
        */*) to=${inc%%/*} ;;
        *) to=$mod ;; # the module's own internal header
        esac
        used["$mod $to"]=1
        [ -n "${allowed["$mod $to"]:-}" ] ||
            echo "layering: ${f#"$tree"/} (module $mod) includes \"$inc\" (module $to)," \
                "not allowed by the table"
    done < <(grep -HE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' \
        "$tree"/src/*/*.[ch] "$tree"/include/crawlsim/*.h)
    awk '$1 == "dep-temp" { print $2, $3 }' "$table" | while read -r a b; do
        [ -n "${used["$a $b"]:-}" ] ||
            echo "table: temporary dependency $a -> $b is no longer used: remove it"
    done

    # 3. MPI calls (not types or constants: an identifier MPI_X followed by a parenthesis)
    declare -A mpi_ok=() long_ok=()
    while read -r h; do mpi_ok[$h]=1; done < <(awk '$1 == "mpi" || $1 == "mpi-temp" { print $2 }' "$table")
    while read -r h; do long_ok[$h]=1; done < <(awk '$1 == "long-temp" { print $2 }' "$table")
    local rel calls n
    while IFS=: read -r f calls; do
        rel=${f#"$tree"/}
        case $rel in src/comm/* | src/core/*) continue ;; esac
        if [ -n "${mpi_ok[$rel]:-}" ]; then
            [ "$calls" -gt 0 ] || echo "table: $rel no longer calls MPI: remove its mpi entry"
        elif [ "$calls" -gt 0 ]; then
            echo "mpi: $rel calls MPI directly ($calls lines): move the calls to comm (or core)"
        fi
    done < <(grep -cE '\bMPI_[A-Za-z_0-9]+[[:space:]]*\(' "$tree"/src/*/*.[ch])

    # 4. file length
    while read -r n f; do
        [ "$f" = total ] && continue
        rel=${f#"$tree"/}
        if [ -n "${long_ok[$rel]:-}" ]; then
            [ "$n" -gt "$MAX_LINES" ] || echo "table: $rel has $n lines now: remove its long-temp entry"
        elif [ "$n" -gt "$MAX_LINES" ]; then
            echo "length: $rel has $n lines (at most $MAX_LINES: split it into files of one idea)"
        fi
    done < <(wc -l "$tree"/src/*/*.[ch] "$tree"/include/crawlsim/*.h)
}

TABLE=$SRC/docs/developer/modules.txt
[ -f "$TABLE" ] || { fail "no table $TABLE"; finish; }

# the tree as it is
check "$SRC" "$TABLE" > violations.txt
if [ -s violations.txt ]; then
    fail "the module rules are broken:
$(cat violations.txt)"
else
    pass "layering, MPI calls and file lengths keep docs/developer/modules.txt"
fi

# a collective's error is agreed or cannot happen: every function of comm.h that returns a
# cs_err, and cs_agree, is CS_NODISCARD (warn_unused_result: the -Werror build rejects a
# discarded one); the typed collectives that cannot fail return nothing
nodiscard() {
    grep -nE '^CS_API +cs_err ' "$1/include/crawlsim/comm.h"
    grep -nE '^CS_API +cs_err +cs_agree\(' "$1/include/crawlsim/core.h"
}
nodiscard "$SRC" > discard.txt
if [ -s discard.txt ]; then
    fail "comm functions returning a cs_err without CS_NODISCARD: $(cat discard.txt)"
else
    pass "every cs_err of comm.h and cs_agree is CS_NODISCARD"
fi

# a policy is known in its file and its registry line only: no source compares a policy's name
# (run.policy, refresh.policy, bandit.policies: the names of src/config/registry_*.def, and
# bandit-NAME) with a literal; the registries compare them with their tables' entries. (The
# word "adaptive", a re-crawl policy's name, is also a value of refresh.fraction and
# tres.max_per_host, which config.c parses.)
named() {
    local names n
    names=$(sed -n 's/^CS_[A-Z]*_\(POLICY\|ONLY\)([a-z_0-9]*, *"\([a-z0-9-]*\)".*/\2/p' \
        "$SRC"/src/config/registry_*.def | sort -u)
    [ "$(wc -w <<< "$names")" -ge 20 ] || echo "too few policy names in registry_*.def: $names"
    for n in $names; do
        grep -rnE "str(n)?cmp\([^;]*\"(bandit-)?$n\"" "$1/src" --include=*.c --include=*.h |
            grep -v "^$1/src/discover/discover.c:" | grep -vE "^$1/src/config/config.c:.*\"adaptive\""
    done
}
if named "$SRC" > named.txt; [ -s named.txt ]; then
    fail "a policy's name is compared outside its registry: $(cat named.txt)"
else
    pass "no policy name (discovery, re-crawl, bandit) is compared outside the registries"
fi

# the checks can fail: a copy with one planted violation of each kind
mkdir -p planted
cp -r "$SRC/src" "$SRC/include" planted/
cp "$TABLE" planted/modules.txt
printf '#include "crawlsim/sim.h"\n' >> planted/src/core/core.c  # core may use nothing
printf 'static void f(void) { MPI_Barrier(MPI_COMM_WORLD); }\n' >> planted/src/rng/rng.c
seq 1 1001 > planted/src/rng/long.c
printf 'module rng: core graph\n' >> planted/modules.txt # graph uses rng: a cycle
check planted planted/modules.txt > planted.txt
sed -i 's/^CS_API CS_NODISCARD cs_err cs_comm_sum_fix(/CS_API cs_err cs_comm_sum_fix(/' \
    planted/include/crawlsim/comm.h
printf 'static int f(const char *p) { return strcmp(p, "tree-random") == 0; }\n' \
    >> planted/src/sim/sim_world.c
printf 'static int g(const char *p) { return strcmp(p, "bandit-thompson") == 0; }\n' \
    >> planted/src/sim/sim_world.c
printf 'static int h(const char *p) { return strcmp(p, "static-opt") == 0; }\n' \
    >> planted/src/main/cmd_schedule.c
named planted > named-planted.txt
for want in 'sim_world.c.*tree-random' 'sim_world.c.*bandit-thompson' 'cmd_schedule.c.*static-opt'; do
    grep -q "$want" named-planted.txt && pass "a planted policy-name comparison is found: $want" ||
        fail "a strcmp on a policy name outside the registry is missed: $want ($(cat named-planted.txt))"
done
nodiscard planted > discard-planted.txt
[ -s discard-planted.txt ] && pass "a planted discardable cs_err is found" ||
    fail "a cs_err of comm.h without CS_NODISCARD is missed"
for want in 'layering: src/core/core.c (module core) includes "crawlsim/sim.h"' \
    'mpi: src/rng/rng.c calls MPI' 'length: src/rng/long.c has 1001 lines' \
    'table: the allowed dependencies have a cycle'; do
    if grep -qF "$want" planted.txt; then
        pass "a planted violation is found: $want"
    else
        fail "a planted violation is missed: $want (found: $(cat planted.txt))"
    fi
done

finish
