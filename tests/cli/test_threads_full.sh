#!/usr/bin/env bash
# Thread invariance, the whole matrix (label long): test_threads.sh at OMP_NUM_THREADS = 1, 2
# and 3 on 1 and 2 ranks, for every crawl of it (30 crawls).
THREADS_FULL=1
source "$(dirname "$0")/test_threads.sh"
