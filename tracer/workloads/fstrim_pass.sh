#!/bin/bash
# One fstrim pass: a tree of -n files (default 20000) is written, half of its directories
# deleted (not recorded), then `fstrim -v` of the mount is recorded. Mount without discard.
. "$(dirname "$0")/lib.sh"
ws_parse "$@"
ws_setup 2G
ws_make_tree "$WS_MNT/tree" "${WS_SCALE:-20000}" 5
sync
find "$WS_MNT/tree" -mindepth 1 -maxdepth 1 -type d -name 'd*[02468]' -exec rm -rf {} +
sync
# shellcheck disable=SC2034 # read by ws_record
WS_FSTRIM=0
ws_record fstrim -v "$WS_MNT"
