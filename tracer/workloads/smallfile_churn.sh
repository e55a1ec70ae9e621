#!/bin/bash
# fs_mark-style small-file churn as the filesystem fills (seed 004): rounds of 16 KiB files
# written with fsync, each round deleting every other file of the round before, until the
# filesystem is 90% full or -n rounds (default 40) are done. All of it is recorded.
. "$(dirname "$0")/lib.sh"
ws_parse "$@"
ws_setup 1G
churn() {
	perl -e '
		use strict; use IO::Handle; my ($rounds, $per) = @ARGV; my $buf = "y" x 16384;
		for my $r (0 .. $rounds - 1) {
			my @st = split /\s+/, `df -P .| tail -1`; last if $st[4] =~ /^(\d+)%/ && $1 >= 90;
			mkdir "r$r" or die;
			for my $i (0 .. $per - 1) {
				open(my $fh, ">", "r$r/f$i") or die "$!"; print $fh $buf; $fh->flush; $fh->sync; close $fh;
			}
			if ($r > 0) { for (my $i = 0; $i < $per; $i += 2) { unlink "r" . ($r - 1) . "/f$i" } }
		}' "${WS_SCALE:-40}" 500
}
ws_record churn
