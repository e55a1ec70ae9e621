// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input across every parser, through the sanitized binary ($TRIMSIM): trace
 * files (binary and JSON Lines, as replay, export and convert read them), device
 * profiles and their key=value overrides, policy strings, the blktrace, trace-cmd
 * and DTrace importers, and command-line options. Each row gives the exact text
 * on stderr and the exit status, and names the output file that must not exist
 * afterwards (nothing half-written). Commands run inside a fresh directory, so
 * the messages hold relative paths. A sanitizer report would land on stderr and
 * fail the comparison.
 *
 * Policy errors are one line followed by the policy string and a caret under the
 * column (replay/policies/parse.c); the rows give all three lines.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/helpers.h"

struct bad {
	char name[40];
	char file[24];		/* input written into the directory, "" for none */
	char content[720];
	int clen;		/* bytes of content (0: strlen) */
	char args[240];		/* after "trimsim " */
	char msg[640];		/* exact stderr */
	int rc;
	char out[24];		/* must not exist afterwards */
};

/* A small valid trace in JSON Lines: one 1 GiB device, a FREE and an INTENT. */
#define HDR "{\"trimsim\":1,\"header\":{\"format\":\"trimsim\",\"version\":1,\"devices\":[{\"dev\":\"7:0\"," \
	"\"name\":\"loop7\",\"size\":1073741824,\"logical_block_size\":512,\"physical_block_size\":4096," \
	"\"discard_granularity\":4096,\"discard_max_bytes\":4294967296,\"max_discard_segments\":1,\"fs\":\"xfs\"}]}}\n"
#define REC(kind, t, off, len) "{\"t\":" t ",\"kind\":\"" kind "\",\"op\":\"none\",\"dev\":\"7:0\",\"off\":" off \
	",\"len\":" len ",\"ino\":1,\"lat\":0,\"flags\":\"xfs\"}\n"
#define FOOT(n) "{\"footer\":{\"records\":" #n ",\"lost\":0,\"end_ns\":3000}}\n"
#define OK HDR REC("FREE", "1000", "4096", "8192") REC("INTENT", "2000", "4096", "8192") FOOT(2)
#define PROFILE(body) "{\"model\":\"parametric\",\"description\":\"d\",\"source\":\"s\"" body "}"

#define STAGES "stages: source, dispatch, batch, sort, merge, min, split, align, delay, rate, xfs-cil, " \
	"blk-plug, ext4-mb, ffs-blkfree, btrfs-discard, f2fs-discard, fitrim; presets: as-recorded, passthrough, " \
	"sort-merge-async, none, xfs, ext4, ufs, ufs-trimcons, btrfs-async, f2fs, fstrim"
#define PARAM_KEYS "capacity, qd, channels, queued_trim, discard_supported, discard_max_bytes, " \
	"max_discard_segments, discard_granularity, jitter, read_base, write_base, flush_base, trim_base, " \
	"trim_per_range, trim_unmapped_base, trim_bw, read_bw, write_bw, trim_unmapped_bw, initially_mapped"
#define PROFILES "emmc, ftl-sata, hdd-nodiscard, nvme-ftl, nvme, sata-good, sata-sf2281, sdcard, thin-cloud"

ParameterizedTestParameters(badinput_all, cli)
{
	static struct bad t[] = {
		/* ---- trace files, through the commands that read them ---- */
		{ "binary bad magic", "in.tsim", "XXXXXXXXXXXXXXXXXXXXXXXX", 0, "replay in.tsim -o out.json",
		  "trimsim replay: in.tsim: byte 0: bad magic (not a trimsim trace)\n", 1, "out.json" },
		{ "binary cut header", "in.tsim", "\x01\x4d\x52\x54\xf0\x01\x00\x00\x30\x00", 10,
		  "export --to blktrace in.tsim -o out.bt",
		  "trimsim export: in.tsim: byte 10: header cut short (10 of 16 bytes)\n", 1, "out.bt" },
		{ "jsonl offset overflow", "in.jsonl", HDR REC("FREE", "1", "\"18446744073709551615\"", "1") FOOT(1), 0,
		  "convert in.jsonl out.tsim",
		  "trimsim convert: in.jsonl: line 2: offset 18446744073709551615 + length 1 overflows\n", 1,
		  "out.tsim" },
		{ "jsonl missing field", "in.jsonl",
		  HDR "{\"t\":1,\"kind\":\"FREE\",\"op\":\"none\",\"dev\":\"7:0\",\"off\":0,\"ino\":0,\"lat\":0,"
		  "\"flags\":\"\"}\n" FOOT(1), 0, "replay in.jsonl -p xfs -o out.json",
		  "trimsim replay: in.jsonl: line 2: missing field \"len\"\n", 1, "out.json" },
		{ "jsonl invalid json", "in.jsonl", HDR "{\"t\":1,\n" FOOT(1), 0, "export --to fio in.jsonl -o out.log",
		  "trimsim export: in.jsonl: line 2: invalid JSON: string or '}' expected near end of file\n", 1,
		  "out.log" },
		{ "jsonl unknown kind", "in.jsonl", HDR REC("ERASE", "1", "0", "1") FOOT(1), 0,
		  "replay in.jsonl -o out.json", "trimsim replay: in.jsonl: line 2: unknown kind \"ERASE\"\n", 1,
		  "out.json" },
		{ "jsonl future version", "in.jsonl", "{\"trimsim\":2,\"header\":{\"format\":\"trimsim\"}}\n", 0,
		  "convert in.jsonl out.tsim",
		  "trimsim convert: in.jsonl: line 1: unsupported format version 2 (this trimsim reads 1)\n", 1,
		  "out.tsim" },
		{ "past the device end", "in.jsonl", HDR REC("INTENT", "1000", "1073737728", "65536") FOOT(1), 0,
		  "replay in.jsonl -p passthrough -o out.json",
		  "trimsim replay: in.jsonl: line 2: offset 1073737728 + length 65536 is past the end "
		  "of 7:0 (1073741824 bytes)\n", 1, "out.json" },
		{ "time past ktime_t", "in.jsonl", HDR REC("INTENT", "\"18446744073709551615\"", "0", "4096") FOOT(1),
		  0, "replay in.jsonl -p passthrough -o out.json",
		  "trimsim replay: in.jsonl: line 2: time 18446744073709551615 ns is past the kernel's "
		  "ktime_t range (2^63 - 1 ns)\n", 1, "out.json" },
		/* ---- device profiles and overrides ---- */
		{ "profile unknown", "in.jsonl", OK, 0, "replay in.jsonl -M nosuch -o out.json",
		  "trimsim replay: unknown profile 'nosuch' (known: " PROFILES "; or give a path to a .json file)\n",
		  1, "out.json" },
		{ "profile missing file", "in.jsonl", OK, 0, "replay in.jsonl -M ./nofile.json -o out.json",
		  "trimsim replay: ./nofile.json: No such file or directory\n", 1, "out.json" },
		{ "profile cut json", "p.json", "{\"model\":\"parametric\",", 0, "models ./p.json",
		  "trimsim models: ./p.json:1:22: string or '}' expected near end of file\n", 1, "" },
		{ "profile engine", "p.json", "{\"model\":\"quantum\",\"description\":\"d\",\"source\":\"s\"}", 0,
		  "models ./p.json", "trimsim models: ./p.json: 'model' must be \"parametric\" or \"ftl\"\n", 1, "" },
		{ "profile no source", "p.json", "{\"model\":\"parametric\",\"description\":\"d\"}", 0, "models ./p.json",
		  "trimsim models: ./p.json: 'source' must be a non-empty string\n", 1, "" },
		{ "profile unknown key", "p.json", PROFILE(",\"qdd\":4"), 0, "models ./p.json",
		  "trimsim models: ./p.json: unknown option 'qdd' (known: " PARAM_KEYS ")\n", 1, "" },
		{ "profile out of range", "p.json", PROFILE(",\"qd\":0"), 0, "models ./p.json",
		  "trimsim models: ./p.json: option 'qd': 0 is out of range [1, 65535]\n", 1, "" },
		{ "profile granularity", "p.json", PROFILE(",\"discard_granularity\":3000"), 0, "models ./p.json",
		  "trimsim models: ./p.json: option 'discard_granularity': 3000 must be a power of two in "
		  "[512, 1G]\n", 1, "" },
		{ "override unknown key", "in.jsonl", OK, 0, "replay in.jsonl -M nvme:bogus=1 -o out.json",
		  "trimsim replay: models/profiles/nvme.json: override: unknown option 'bogus' (known: " PARAM_KEYS
		  ")\n", 1, "out.json" },
		{ "override range", "in.jsonl", OK, 0, "replay in.jsonl -M nvme:qd=70000 -o out.json",
		  "trimsim replay: models/profiles/nvme.json: override: option 'qd': 70000 is out of range "
		  "[1, 65535]\n", 1, "out.json" },
		{ "override no value", "in.jsonl", OK, 0, "replay in.jsonl -M nvme:qd -o out.json",
		  "trimsim replay: models/profiles/nvme.json: override: option 'qd': expected key=value\n", 1,
		  "out.json" },
		{ "override size", "in.jsonl", OK, 0, "replay in.jsonl -M nvme:discard_max_bytes=12Q -o out.json",
		  "trimsim replay: models/profiles/nvme.json: override: option 'discard_max_bytes': '12Q' is not a "
		  "valid size (e.g. 4096, 64K, 2M)\n", 1, "out.json" },
		{ "override duration", "in.jsonl", OK, 0, "replay in.jsonl -M sata-sf2281:trim_base=-5ms -o out.json",
		  "trimsim replay: models/profiles/sata-sf2281.json: override: option 'trim_base': '-5ms' is not a "
		  "valid duration (e.g. 500us, 5ms, 2s, 1w)\n", 1, "out.json" },
		/* ---- policy strings ---- */
		{ "policy unknown", "in.jsonl", OK, 0, "replay in.jsonl -p frobnicate -o out.json",
		  "trimsim replay: policy: unknown stage or preset 'frobnicate' (" STAGES ") (column 1)\n"
		  "  frobnicate\n  ^\n", 2, "out.json" },
		{ "policy open paren", "in.jsonl", OK, 0, "replay in.jsonl -p 'sort-merge-async(qd=4' -o out.json",
		  "trimsim replay: policy: 'sort-merge-async(': expected ',' or ')' (column 22)\n"
		  "  sort-merge-async(qd=4\n                       ^\n", 2, "out.json" },
		{ "policy unknown option", "in.jsonl", OK, 0, "replay in.jsonl -p 'merge(maxx=64M)' -o out.json",
		  "trimsim replay: policy: stage 'merge' has no option 'maxx' (options: max, segments, gap) "
		  "(column 7)\n  merge(maxx=64M)\n        ^\n", 2, "out.json" },
		{ "policy empty stage", "in.jsonl", OK, 0, "replay in.jsonl -p 'source(free) || sort' -o out.json",
		  "trimsim replay: policy: expected a stage or preset name (" STAGES ") (column 15)\n"
		  "  source(free) || sort\n                ^\n", 2, "out.json" },
		{ "policy bad duration", "in.jsonl", OK, 0, "replay in.jsonl -p 'batch(window=soon)' -o out.json",
		  "trimsim replay: policy: stage 'batch': option 'window': 'soon' is not a valid duration "
		  "(e.g. 500us, 5ms, 2s, 1w) (column 14)\n  batch(window=soon)\n               ^\n", 2, "out.json" },
		{ "policy bad enum", "in.jsonl", OK, 0, "replay in.jsonl -p 'source(disk)' -o out.json",
		  "trimsim replay: policy: stage 'source': option 'layer': 'disk' is not one of: none, free, intent, "
		  "bio, issue (column 8)\n  source(disk)\n         ^\n", 2, "out.json" },
		/* ---- importers ---- */
		{ "dtrace no header", "d.txt", "hello\n", 0, "import --from dtrace d.txt -o out.tsim",
		  "trimsim import: d.txt:1: expected 'trimsim-dtrace 1' (output of tracer/freebsd/trimsim.d)\n", 1,
		  "out.tsim" },
		{ "dtrace bad number", "d.txt", "trimsim-dtrace 1\nfree 1000 ada0p2 77 x 32768\n", 0,
		  "import --from dtrace d.txt -o out.tsim",
		  "trimsim import: d.txt:2: expected 'free TIME DEV INO OFFSET BYTES'\n", 1, "out.tsim" },
		{ "dtrace bad command", "d.txt", "trimsim-dtrace 1\nstart 2000 ada0 erase 0 4096\n", 0,
		  "import --from dtrace d.txt -o out.tsim",
		  "trimsim import: d.txt:2: CMD must be read, write, delete or flush\n", 1, "out.tsim" },
		{ "dtrace offset overflow", "d.txt", "trimsim-dtrace 1\nfree 1000 ada0p2 77 18446744073709551615 4096\n",
		  0, "import --from dtrace d.txt -o out.tsim",
		  "trimsim import: d.txt:2: offset 18446744073709551615 + length 4096 overflows\n", 1, "out.tsim" },
		{ "blktrace bad magic", "b.bt", "not a blktrace file at all, just text that is long enough for one!\n",
		  0, "import --from blktrace b.bt -o out.tsim",
		  "trimsim import: b.bt: offset 0: bad magic 0x20746f6e (not blktrace data)\n", 1, "out.tsim" },
		{ "blktrace cut record", "b.bt",
		  "\x07\x74\x61\x65\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00", 16,
		  "import --from blktrace b.bt -o out.tsim",
		  "trimsim import: b.bt: offset 0: truncated record (16 of 48 bytes)\n", 1, "out.tsim" },
		{ "trace-cmd not a trace.dat", "t.dat", "tracing? no\n", 0, "import --from trace-cmd t.dat -o out.tsim",
		  "trimsim import: t.dat: not a readable trace-cmd trace.dat file\n", 1, "out.tsim" },
		{ "import missing input", "", "", 0, "import --from blktrace nofile.bt -o out.tsim",
		  "trimsim import: nofile.bt: No such file or directory\n", 1, "out.tsim" },
		/* ---- command-line options ---- */
		{ "import unknown kind", "d.txt", "x\n", 0, "import --from ktrace d.txt -o out.tsim",
		  "trimsim import: --from: unknown kind 'ktrace' (blktrace, trace-cmd, dtrace)\n", 2, "out.tsim" },
		{ "import option value", "b.bt", "x", 0, "import --from blktrace --device-size 12Q b.bt -o out.tsim",
		  "trimsim import: option 'device_size': '12Q' is not a valid size (e.g. 4096, 64K, 2M)\n", 2,
		  "out.tsim" },
		{ "export unknown kind", "in.jsonl", OK, 0, "export --to csv in.jsonl -o out.csv",
		  "trimsim export: --to: unknown kind 'csv' (blktrace, fio)\n", 2, "out.csv" },
		{ "export bad records", "in.jsonl", OK, 0, "export --to blktrace --records alloc in.jsonl -o out.bt",
		  "trimsim export: option 'records': 'alloc' is not one of: auto, issue, bio, intent, free\n", 2,
		  "out.bt" },
		{ "convert bad --to", "in.jsonl", OK, 0, "convert --to xml in.jsonl out.xml",
		  "trimsim convert: option '--to': 'xml' is not one of: binary, jsonl\n", 2, "out.xml" },
		{ "replay speed 0", "in.jsonl", OK, 0, "replay in.jsonl --speed 0 -o out.json",
		  "trimsim replay: --speed '0': expected a number > 0\n", 2, "out.json" },
		{ "replay timing", "in.jsonl", OK, 0, "replay in.jsonl --timing later -o out.json",
		  "trimsim replay: --timing 'later': expected trace or asap\n", 2, "out.json" },
		{ "replay seed", "in.jsonl", OK, 0, "replay in.jsonl --seed -1 -o out.json",
		  "trimsim replay: --seed '-1': expected an integer\n", 2, "out.json" },
		{ "replay qd", "in.jsonl", OK, 0, "replay in.jsonl --qd 0 -o out.json",
		  "trimsim replay: --qd '0': expected 1..65536\n", 2, "out.json" },
		{ "replay unknown device", "in.jsonl", OK, 0, "replay in.jsonl --dev 8:99 -o out.json",
		  "trimsim replay: in.jsonl: --dev 8:99: no such device in the trace (7:0)\n", 1, "out.json" },
		{ "compare jobs", "in.jsonl", OK, 0, "compare in.jsonl -p xfs -M nvme --jobs 0 -o out.json",
		  "trimsim compare: --jobs '0': expected an integer in 1..1024\n", 2, "out.json" },
		{ "record duration", "", "", 0, "record -o out.tsim --duration forever -m /",
		  "trimsim record: --duration 'forever': not a duration\n", 2, "out.tsim" },
		{ "record backend", "", "", 0, "record -o out.tsim --backend dtrace -m /",
		  "trimsim record: --backend 'dtrace': choose auto, bpf or tracefs\n", 2, "out.tsim" },
		{ "models unknown", "", "", 0, "models nosuch",
		  "trimsim models: unknown profile 'nosuch' (known: " PROFILES "; or give a path to a .json file)\n",
		  1, "" },
		{ "unknown command", "", "", 0, "frobnicate", "trimsim: unknown command 'frobnicate' (try trimsim --help)\n",
		  2, "" },
	};
	return cr_make_param_array(struct bad, t, sizeof(t) / sizeof(t[0]));
}

ParameterizedTest(struct bad *b, badinput_all, cli)
{
	char *dir = th_tmpdir(), path[512], cmd[1024], *out = NULL, *err = NULL;
	int rc;

	cr_assert_not_null(dir);
	if (b->file[0]) {
		snprintf(path, sizeof(path), "%s/%s", dir, b->file);
		cr_assert_eq(th_write(path, b->content, b->clen ? (size_t)b->clen : strlen(b->content)), 0);
	}
	snprintf(cmd, sizeof(cmd), "cd %s && %s %s", dir, th_trimsim(), b->args);
	rc = th_run(cmd, &out, &err);
	cr_expect_str_eq(err ? err : "", b->msg, "%s: stderr was:\n%s", b->name, err ? err : "");
	cr_expect_eq(rc, b->rc, "%s: exit %d, expected %d", b->name, rc, b->rc);
	if (b->out[0]) {
		snprintf(path, sizeof(path), "%s/%s", dir, b->out);
		cr_expect_neq(access(path, F_OK), 0, "%s: %s was left behind", b->name, b->out);
	}
	/* Nothing else either: no temporary file beside the output. */
	snprintf(cmd, sizeof(cmd), "ls -A %s | grep -v -x -e '%s' | wc -l", dir, b->file[0] ? b->file : "-");
	free(out);
	out = NULL;
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_expect_str_eq(out, "0\n", "%s: files left in the directory", b->name);
	free(out);
	free(err);
	th_rmtree(dir);
	free(dir);
}
