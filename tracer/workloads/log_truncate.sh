#!/bin/bash
# Append-and-truncate logs, like a service's logs under copytruncate rotation: 6 log files get
# 4 KiB records appended round-robin, each write followed by fdatasync every 16 records; a file
# that reaches 6 MiB is truncated to zero and written again. -n records in total (default 12000,
# 47 MiB). The appends keep the filesystems' preallocations open (ext4 inode preallocation, XFS
# speculative EOF preallocation); truncation and close give them back. All of it is recorded.
. "$(dirname "$0")/lib.sh"
ws_parse "$@"
ws_setup 512M
logload() {
	perl -e '
		use strict; use IO::Handle; my ($n) = @ARGV; my $rec = "L" x 4096; my (@fh, @size);
		for my $i (0 .. 5) { open($fh[$i], ">>", "svc$i.log") or die "$!"; $size[$i] = 0 }
		for my $k (0 .. $n - 1) {
			my $i = $k % 6;
			syswrite($fh[$i], $rec) == 4096 or die "$!";
			$size[$i] += 4096;
			$fh[$i]->sync if $k % 16 == 15;
			if ($size[$i] >= 6 << 20) {	# copytruncate: the file is emptied in place
				truncate($fh[$i], 0) or die "$!"; $size[$i] = 0;
				close $fh[$i]; open($fh[$i], ">>", "svc$i.log") or die "$!";
			}
		}
		close $_ for @fh;' "${WS_SCALE:-12000}"
}
ws_record logload
