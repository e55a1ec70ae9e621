#!/bin/bash
# Package-manager-like unpack/replace, as dpkg upgrades a package: version 0 of a synthetic
# package (-n files, default 1500, kernel-tree-like sizes) is installed before the recording;
# the recording holds 4 upgrades. Each upgrade unpacks every file of the new version next to
# the old one as NAME.dpkg-new (sizes change by up to +-25%), fsyncs them, renames each over the
# old file (which frees it), drops the 5% of files the new version no longer ships and adds as
# many new ones. Deterministic (perl, seed per version).
. "$(dirname "$0")/lib.sh"
ws_parse "$@"
ws_setup 1G
# upgrade.pl VERSION NFILES, run in the mount: one upgrade to VERSION.
cat > "$WS_DIR/upgrade.pl" <<'PERL'
use strict; use IO::Handle; my ($v, $n) = @ARGV; my $buf = "p" x 1048576;
sub size { my ($i, $v) = @_; srand($i * 7 + 1); my $u = rand(); my $s =
	$u < 0.55 ? 200 + int(rand(7800)) : $u < 0.88 ? 8192 + int(rand(24576)) :
	$u < 0.99 ? 32768 + int(rand(98304)) : 131072 + int(rand(917504));
	srand($i * 7919 + $v * 104729); return int($s * (0.75 + rand(0.5))) + 1 }
sub shipped { my ($i, $v) = @_; return (($i * 2654435761 + $v * 40503) % 100) >= 5 }
my @new;
for my $i (0 .. $n - 1) {
	my $d = sprintf("usr/d%03d", $i % 97); my $f = sprintf("%s/f%05d", $d, $i);
	if (!shipped($i, $v)) { unlink $f; next }
	mkdir "usr"; mkdir $d;
	open(my $fh, ">", "$f.dpkg-new") or die "$f: $!";
	print $fh substr($buf, 0, size($i, $v)) or die "$!";
	$fh->flush; $fh->sync; close $fh or die "$!";
	push @new, $f;
}
for my $f (@new) { rename("$f.dpkg-new", $f) or die "rename $f: $!" }
PERL
n=${WS_SCALE:-1500}
(cd "$WS_MNT" && perl "$WS_DIR/upgrade.pl" 0 "$n") && sync
# shellcheck disable=SC2016 # expanded by that sh
ws_record sh -c 'for v in 1 2 3 4; do perl "$0" "$v" "$1" || exit 1; done' "$WS_DIR/upgrade.pl" "$n"
