#!/usr/bin/env bash
# The strict setting with [refresh] on, the whole matrix (label long): test_strict_refresh.sh
# with every re-crawl policy compared with 1 rank at 2, 3 and 4 ranks (CI runs
# test_strict_refresh.sh, which takes one of the three counts per policy in turn).
STRICT_FULL=1
source "$(dirname "$0")/test_strict_refresh.sh"
