#!/bin/bash
# A database with deletes and a VACUUM-like rewrite, in sqlite3 (rollback journal, synchronous=FULL):
# -n rounds (default 12) of: insert 400 rows of 3-12 KiB, delete about a third of the rows, and every
# third round VACUUM (sqlite writes a compacted copy through its journal and truncates the file).
# Every transaction creates, grows, fsyncs and deletes the journal file: small files appended to
# and released, and a main file that grows in place and is truncated. All of it is recorded.
. "$(dirname "$0")/lib.sh"
ws_parse "$@"
command -v sqlite3 >/dev/null || ws_die "sqlite3 not installed (apt-get install sqlite3)"
ws_setup 512M
dbload() {
	local r rounds=${WS_SCALE:-12}
	sqlite3 app.db 'PRAGMA journal_mode=DELETE; PRAGMA page_size=4096;
		CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v BLOB);' >/dev/null
	for ((r = 0; r < rounds; r++)); do
		# deterministic rows: sizes from the row number, contents a repeated digit
		sqlite3 app.db "PRAGMA synchronous=FULL;
			WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
			INSERT INTO t(k, v) SELECT $r * 400 + i, zeroblob(3072 + ((($r * 400 + i) * 7919) % 9216)) FROM n;"
		sqlite3 app.db "PRAGMA synchronous=FULL; DELETE FROM t WHERE (k * 2654435761) % 3 = $r % 3;"
		if ((r % 3 == 2)); then sqlite3 app.db 'PRAGMA synchronous=FULL; VACUUM;'; fi
	done
}
ws_record dbload
