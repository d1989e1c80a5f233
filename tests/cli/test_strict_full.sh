#!/usr/bin/env bash
# The strict setting's rank invariance, the whole matrix (label long): test_strict.sh with every
# policy and partition method compared with 1 rank at 2, 3 and 4 ranks (about 140 crawls; CI
# runs test_strict.sh, which takes one of the three counts per case in turn).
STRICT_FULL=1
source "$(dirname "$0")/test_strict.sh"
