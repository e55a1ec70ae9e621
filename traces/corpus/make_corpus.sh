#!/bin/bash
# Records the corpus (traces/corpus/*.tsim) with tracer/workloads/*.sh and writes the table of
# traces/corpus/README.md from `trimsim info --json` of each file. Root; takes a few minutes.
#
#   traces/corpus/make_corpus.sh [NAME...]     (default: every entry below)
#
# Scales are smaller than the workload scripts' defaults so the corpus stays under 20 MB.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
wl=$top/tracer/workloads
ts=${TRIMSIM:-$top/build/trimsim}
export TRIMSIM=$ts

# name | script | fs | mkfs options | mount options | fstrim at end | scale (-n) | size | what [| settle s]
entries=(
	"xfs-discard-rmtree|rm_tree|xfs||discard|0|8000|2G|rm -rf of a synthetic kernel-like tree of 8000 files"
	"ext4-discard-rmtree|rm_tree|ext4||discard|0|8000|2G|rm -rf of a synthetic kernel-like tree of 8000 files"
	"btrfs-discard-rmtree|rm_tree|btrfs||discard=sync|0|8000|2G|rm -rf of a synthetic kernel-like tree of 8000 files"
	"xfs-fstrim-rmtree|rm_tree|xfs|||1|8000|2G|rm -rf of the same tree, no online discard, then fstrim"
	"ext4-fstrim-rmtree|rm_tree|ext4|||1|8000|2G|rm -rf of the same tree, no online discard, then fstrim"
	"xfs-nodiscard-rmtree|rm_tree|xfs|||0|8000|2G|rm -rf of the same tree with no discard at all (the default mount, no fstrim): what most systems would record"
	"ext4-nodiscard-rmtree|rm_tree|ext4|||0|8000|2G|rm -rf of the same tree with no discard at all (the default mount, no fstrim): what most systems would record"
	"xfs-discard-rmlarge|rm_large|xfs||discard|0|64|2G|rm -rf of a tree of 64 large files of 1-128 MiB, 1.1 GiB (build output, media, disk images)"
	"ext4-discard-rmlarge|rm_large|ext4||discard|0|64|2G|rm -rf of a tree of 64 large files of 1-128 MiB, 1.1 GiB (build output, media, disk images)"
	"xfs-discard-churn|smallfile_churn|xfs||discard|0|200|320M|200 files of 64 KiB per round, synced, every other one deleted a round later, until 90% full"
	"ext4-discard-churn|smallfile_churn|ext4||discard|0|200|320M|200 files of 64 KiB per round, synced, every other one deleted a round later, until 90% full"
	"btrfs-discard-churn|smallfile_churn|btrfs||discard=sync|0|200|320M|200 files of 64 KiB per round, synced, every other one deleted a round later, until 90% full"
	"xfs-discard-unpack|unpack_delete|xfs||discard|0|3000|2G|tarball of 3000 files unpacked twice, one copy deleted"
	"ext4-discard-unpack|unpack_delete|ext4||discard|0|3000|2G|tarball of 3000 files unpacked twice, one copy deleted"
	"btrfs-discard-unpack|unpack_delete|btrfs||discard=sync|0|3000|2G|tarball of 3000 files unpacked twice, one copy deleted"
	"xfs-fstrim-pass|fstrim_pass|xfs|||0|6000|2G|fstrim -v after half of a 6000-file tree was deleted"
	"ext4-fstrim-pass|fstrim_pass|ext4|||0|6000|2G|fstrim -v after half of a 6000-file tree was deleted"
	"xfs-discard-db|db_overwrite|xfs||discard|0|64|1G|random 16 KiB page overwrites + fdatasync, 4 MiB WAL segments deleted in batches, 64 rounds"
	"ext4-discard-db|db_overwrite|ext4||discard|0|64|1G|random 16 KiB page overwrites + fdatasync, 4 MiB WAL segments deleted in batches, 64 rounds"
	"btrfs-discard-db|db_overwrite|btrfs||discard=sync|0|64|1G|random 16 KiB page overwrites + fdatasync, 4 MiB WAL segments deleted in batches, 64 rounds"
	"xfs-discard-sqlite|sqlite_vacuum|xfs||discard|0|8|512M|sqlite3, rollback journal: 8 rounds of 400 inserts of 3-12 KiB, a third of the rows deleted, VACUUM every third round"
	"ext4-discard-sqlite|sqlite_vacuum|ext4||discard|0|8|512M|sqlite3, rollback journal: 8 rounds of 400 inserts of 3-12 KiB, a third of the rows deleted, VACUUM every third round"
	"btrfs-discard-sqlite|sqlite_vacuum|btrfs||discard=sync|0|8|512M|sqlite3, rollback journal: 8 rounds of 400 inserts of 3-12 KiB, a third of the rows deleted, VACUUM every third round"
	"xfs-discard-logtrunc|log_truncate|xfs||discard|0|12000|512M|6 logs appended 4 KiB at a time with fdatasync, each truncated to zero at 6 MiB (copytruncate), 47 MiB"
	"ext4-discard-logtrunc|log_truncate|ext4||discard|0|12000|512M|6 logs appended 4 KiB at a time with fdatasync, each truncated to zero at 6 MiB (copytruncate), 47 MiB"
	"btrfs-discard-logtrunc|log_truncate|btrfs||discard=sync|0|12000|512M|6 logs appended 4 KiB at a time with fdatasync, each truncated to zero at 6 MiB (copytruncate), 47 MiB"
	"xfs-discard-pkg|pkg_replace|xfs||discard|0|250|1G|4 package upgrades of 250 files: unpack as .dpkg-new, fsync, rename over the old file, 5% of files dropped and added"
	"ext4-discard-pkg|pkg_replace|ext4||discard|0|250|1G|4 package upgrades of 250 files: unpack as .dpkg-new, fsync, rename over the old file, 5% of files dropped and added"
	"btrfs-discard-pkg|pkg_replace|btrfs||discard=sync|0|250|1G|4 package upgrades of 250 files: unpack as .dpkg-new, fsync, rename over the old file, 5% of files dropped and added"
	"btrfs-async-rmtree|rm_tree|btrfs||discard=async|0|3000|1G|rm -rf of a 3000-file tree with discard=async, recorded 200 s past the workload (BTRFS_DISCARD_DELAY 120 s)|200"
	"btrfs-sync-rmtree|rm_tree|btrfs||discard=sync|0|3000|1G|the same rm -rf with discard=sync: its discard BIOs are the extents each transaction freed, the FREE stream btrfs-async is checked with"
)

want=" $* "
for e in "${entries[@]}"; do
	IFS='|' read -r name script fs mkfs mnt trim scale size what settle <<<"$e"
	[ $# -eq 0 ] || [[ $want == *" $name "* ]] || continue
	args=(-f "$fs" -n "$scale" -s "$size" -o "$here/$name.tsim")
	[ -n "$mkfs" ] && args+=(-k "$mkfs")
	[ -n "$mnt" ] && args+=(-m "$mnt")
	[ "$trim" = 1 ] && args+=(-t)
	echo "== $name: $script.sh ${args[*]}${settle:+ (WS_SETTLE=$settle)}" >&2
	rm -f "$here/$name.tsim"
	WS_SETTLE=${settle:-2} bash "$wl/$script.sh" "${args[@]}" >&2
done

# The README table: one row per trace, numbers from trimsim info --json.
{
	sed '/^<!-- corpus table -->$/q' "$here/README.md"
	echo
	echo "| trace | kernel | fs | mkfs options | mount options | workload | FREE | ALLOC | INTENT | BIO | ISSUE | DONE | META | discard ISSUEs | discard bytes | file bytes |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for e in "${entries[@]}"; do
		IFS='|' read -r name script fs mkfs mnt trim scale size what settle <<<"$e"
		f=$here/$name.tsim
		[ -f "$f" ] || continue
		case $fs in xfs) base="-K" ;; ext4) base="-E nodiscard" ;; btrfs) base="-K" ;; esac
		"$ts" info --json "$f" | perl -MJSON::PP -e '
			my ($name, $fs, $mkfs, $mnt, $what, $script, $trim, $size) = @ARGV;
			local $/; my $j = decode_json(<STDIN>);
			my $k = $j->{kinds}; my $d = $j->{ops}{discard} // {};
			my ($rel) = split / /, $j->{header}{kernel};
			$what .= " (`$script.sh`" . ($trim ? " -t" : "") . ")";
			printf "| %s.tsim | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				$name, $rel, $fs, $mkfs, $mnt eq "" ? "(defaults)" : $mnt, $what,
				(map { $k->{$_}{records} } qw(FREE ALLOC INTENT BIO ISSUE DONE META)),
				$d->{records} // 0, $d->{bytes} // 0, $size;
		' "$name" "$fs" "$base${mkfs:+ $mkfs}" "$mnt" "$what" "$script" "$trim" "$(stat -c %s "$f")"
	done
	echo
	echo "Total: $(cat "$here"/*.tsim | wc -c) bytes in $(find "$here" -maxdepth 1 -name "*.tsim" | wc -l) traces."
} > "$here/README.md.new"
mv "$here/README.md.new" "$here/README.md"
