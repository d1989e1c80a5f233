#!/usr/bin/env bash
# test_corrupt_graph.sh with every dataset x every damage kind (about 90 runs, a few minutes:
# label `long`, which CI leaves out).
CRAWLSIM_CORRUPT_ALL=1 exec bash "$(dirname "$0")/test_corrupt_graph.sh" "$@"
