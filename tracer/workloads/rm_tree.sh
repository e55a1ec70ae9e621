#!/bin/bash
# rm -rf of a large source tree (seed 001): a synthetic kernel-like tree of -n files
# (default 40000), written and synced, then `rm -rf` recorded (and fstrim with -t).
. "$(dirname "$0")/lib.sh"
ws_parse "$@"
ws_setup 4G
ws_make_tree "$WS_MNT/linux" "${WS_SCALE:-40000}" 1
ws_record rm -rf linux
