#!/bin/bash
# rm -rf of a tree of large files (build output, media, VM images; the case FreeBSD's TRIM
# consolidation was made for): -n files (default 200, about 4 GiB) of 1-128 MiB
# (ws_make_large_tree in lib.sh, seed 2), written and synced, then `rm -rf` recorded (and
# fstrim with -t).
. "$(dirname "$0")/lib.sh"
ws_parse "$@"
ws_setup 8G
ws_make_large_tree "$WS_MNT/out" "${WS_SCALE:-200}" 2
ws_record rm -rf out
