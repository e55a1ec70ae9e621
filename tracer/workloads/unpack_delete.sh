#!/bin/bash
# Unpack then delete, like an OS install (seed 000): a tarball of a synthetic tree (-n files,
# default 20000) is unpacked onto the filesystem, synced, and the unpacked "package cache"
# half is deleted again. The whole sequence is recorded.
. "$(dirname "$0")/lib.sh"
ws_parse "$@"
ws_setup 2G
src=$WS_DIR/src
mkdir -p "$src"
ws_make_tree "$src/pkg" "${WS_SCALE:-20000}" 3
tar -C "$src" -cf "$WS_DIR/pkg.tar" pkg
rm -rf "$src"
install_then_clean() {
	mkdir -p sys cache
	tar -C sys -xf "$WS_DIR/pkg.tar"
	tar -C cache -xf "$WS_DIR/pkg.tar"
	sync
	rm -rf cache
	sync
}
export WS_DIR
ws_record install_then_clean
