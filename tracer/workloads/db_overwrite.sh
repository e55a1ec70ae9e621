#!/bin/bash
# Database-like: a 256 MiB data file overwritten in random 16 KiB pages with fdatasync,
# and a write-ahead log of 4 MiB segments of which all but the newest two are deleted
# every 8 segments; -n rounds (default 64). All of it is recorded.
. "$(dirname "$0")/lib.sh"
ws_parse "$@"
ws_setup 1G
head -c 256M /dev/zero > "$WS_MNT/data.db"
sync
dbload() {
	perl -e '
		use strict; use IO::Handle; use Fcntl qw(SEEK_SET); my ($rounds) = @ARGV; srand(7);
		my $page = "z" x 16384; my $seg = "w" x 1048576;
		open(my $db, "+<", "data.db") or die "$!";
		for my $r (0 .. $rounds - 1) {
			for (1 .. 64) {
				sysseek($db, int(rand(16384)) * 16384, SEEK_SET); syswrite($db, $page);
			}
			$db->sync;
			open(my $w, ">", sprintf("wal.%06d", $r)) or die "$!";
			print $w $seg for 1 .. 4; $w->flush; $w->sync; close $w;
			if ($r % 8 == 7) { unlink sprintf("wal.%06d", $_) for ($r - 7 .. $r - 2) }
		}' "${WS_SCALE:-64}"
}
ws_record dbload
