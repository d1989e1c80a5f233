# Sourced by tools that build into a folder of their own (tools/analyze, tools/tsan).
# scratch_dir TOOL DIR: empties DIR for TOOL and marks it as TOOL's; exits 2 (DIR untouched)
# when DIR holds files without that mark, so that a mistyped argument such as `build` never
# deletes a real build.
scratch_dir() {
    local tool=$1 dir=$2
    if [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] && [ ! -e "$dir/.tools-$tool" ]; then
        echo "tools/$tool: $dir holds files it did not make: give a new folder" >&2
        exit 2
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    touch "$dir/.tools-$tool"
}
