#!/usr/bin/env bash
# cli.test_procedural over every policy, [refresh] off and on, at 1, 2 and 4 ranks (label long:
# 48 comparisons of 96 crawls, 136 s; tools/test DIR -L long).
PROCEDURAL_FULL=1 exec bash "$(dirname "$0")/test_procedural.sh" "$@"
