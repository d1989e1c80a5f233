#!/usr/bin/env bash
# Adding a discovery policy is one file and one registry line (docs/developer/adding-a-policy.md):
# the worked example, docs/developer/examples/fish.c, is compiled with the build's own flags
# (compile_commands.json) together with the two files that include the registry,
# src/discover/discover.c and src/config/schema.c, against a copy of
# src/config/registry_discover.def with the one line added; crawlsim is relinked with them
# (the build's link line, the three objects before libcrawlsim.a). The new binary lists the
# policy in `help config run` and `run --help`, and crawls with it at 1 and 2 ranks, the strict
# setting giving the same crawl on both.
source "$(dirname "$0")/lib.sh"
build=$(cd "$(dirname "$BIN")" && pwd)
[ -f "$build/compile_commands.json" ] && [ -f "$build/CMakeFiles/crawlsim.dir/link.txt" ] || {
    pass "no compile_commands.json or link line in $build: not checked"
    finish
}

# the registry with the example's line
mkdir -p reg/config
cp "$SRC/src/config/registry_discover.def" reg/config/
echo 'CS_DISCOVER_POLICY(fish, "fish", "Fish-Search: anchor and parents'"'"' relevance (the example)")' \
    >> reg/config/registry_discover.def

# compile: the build's command for discover.c, with the copy first on the include path
if python3 - "$build" "$SRC" "$WORK" > compile.log 2>&1 << 'PY'; then
import json, os, shlex, subprocess, sys
build, src, work = sys.argv[1:4]
cmds = {os.path.relpath(e["file"], src): e for e in json.load(open(f"{build}/compile_commands.json"))}
def compile(rel, source, out, extra=()):
    e = cmds[rel]
    words = shlex.split(e["command"]) if "command" in e else list(e["arguments"])
    i = words.index("-o")
    words[i + 1] = out
    words[-1] = source  # the source is the last word of CMake's commands
    words[1:1] = [f"-I{work}/reg", *extra]
    subprocess.run(words, cwd=e["directory"], check=True)
compile("src/discover/discover.c", f"{src}/src/discover/discover.c", f"{work}/discover.o")
compile("src/config/schema.c", f"{src}/src/config/schema.c", f"{work}/schema.o")
# fish.c includes "discover_impl.h", which lives beside discover.c
compile("src/discover/discover.c", f"{src}/docs/developer/examples/fish.c", f"{work}/fish.o",
        [f"-I{src}/src/discover"])
PY
    pass "compiled fish.c, discover.c and schema.c with the example's registry line"
else
    fail "compiling the example: $(tail -20 compile.log)"
    finish
fi
link=$(sed "s# -o crawlsim # -o $WORK/crawlsim-fish #; s# libcrawlsim.a # $WORK/fish.o $WORK/discover.o $WORK/schema.o libcrawlsim.a #" \
    "$build/CMakeFiles/crawlsim.dir/link.txt")
if (cd "$build" && eval "$link") > link.log 2>&1; then
    pass "linked crawlsim with the example policy"
else
    fail "linking: $(tail -20 link.log)"
    finish
fi
BIN=$WORK/crawlsim-fish

"$BIN" help config run > help.txt 2>&1
grep -q 'fish' help.txt && pass "help config run lists run.policy = fish" ||
    fail "run.policy = fish not in help config run: $(grep -i policy help.txt)"
"$BIN" run --help > runhelp.txt 2>&1
grep -Eq '^  fish +Fish-Search' runhelp.txt && pass "run --help has the policy's line" ||
    fail "run --help lacks fish: $(grep -A8 -i 'policies' runhelp.txt | head -12)"

# a crawl with it: the strict setting gives the same crawl on 1 and 2 ranks
run 1 -q gen "$SRC/graphs/tiny.ini" -o web.h5 || fail "gen"
common=(--set run.graph="$WORK/web.h5" --set run.policy=fish --set run.pages=2000 --set run.tasks=1
    --set crawl.bandwidth=100)
run 1 -q run "$SRC/jobs/quickstart.ini" "${common[@]}" -o p1.h5 > out1.txt 2>&1 &&
    pass "a crawl with run.policy = fish on 1 rank" || fail "crawl on 1 rank: $(tail -5 out1.txt)"
run 2 -q run "$SRC/jobs/quickstart.ini" "${common[@]}" -o p2.h5 > out2.txt 2>&1 &&
    pass "a crawl with run.policy = fish on 2 ranks" || fail "crawl on 2 ranks: $(tail -5 out2.txt)"
if "$BIN" compare p1.h5 p2.h5 --ignore /ranks --ignore /series/bytes_exchanged \
    --ignore /series/messages --ignore /series/collectives --ignore /series/collective_bytes \
    --ignore /series/allreduces --ignore /series/allreduce_bytes --ignore /series/visited_notes \
    > cmp.txt 2>&1; then
    pass "the fish crawl is the same on 1 and 2 ranks (strict setting)"
else
    fail "fish differs between 1 and 2 ranks: $(head -10 cmp.txt)"
fi
finish
