#!/bin/bash
# fs_mark-style small-file churn as the filesystem fills (seed 004): rounds of 200 files of
# 64 KiB, synced once per round (fs_mark -S 0 with a sync), each round deleting every other
# file of the round before, until the filesystem is 90% full or -n rounds (default 200) are
# done. All of it is recorded. A small device (-s, default 512M) fills in a few dozen rounds.
. "$(dirname "$0")/lib.sh"
ws_parse "$@"
ws_setup 512M
churn() {
	perl -e '
		use strict; my ($rounds, $per) = @ARGV; my $buf = "y" x 65536;
		for my $r (0 .. $rounds - 1) {
			my @st = split /\s+/, `df -P . | tail -1`;
			last if $st[4] =~ /^(\d+)%/ && $1 >= 90;
			mkdir "r$r" or die "mkdir r$r: $!";
			for my $i (0 .. $per - 1) {
				open(my $fh, ">", "r$r/f$i") or die "r$r/f$i: $!"; print $fh $buf or die "$!"; close $fh or die "$!";
			}
			system("sync", "-f", ".") == 0 or die "sync";
			if ($r > 0) { for (my $i = 0; $i < $per; $i += 2) { unlink "r" . ($r - 1) . "/f$i" } }
		}' "${WS_SCALE:-200}" 200
}
ws_record churn
