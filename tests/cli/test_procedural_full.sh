#!/usr/bin/env bash
# cli.test_procedural over every policy, [refresh] off and on, at 1, 2 and 4 ranks (label long:
# 78 comparisons of 156 crawls; tools/test DIR -L long).
PROCEDURAL_FULL=1 exec bash "$(dirname "$0")/test_procedural.sh" "$@"
