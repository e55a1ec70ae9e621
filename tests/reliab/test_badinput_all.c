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

#include "tests/common/helpers.h"

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

#define STAGES "stages: source, dispatch, batch, sort, merge, min, split, align, delay, rate, chain, xfs-cil, " \
	"blk-plug, ext4-mb, ffs-blkfree, btrfs-discard, f2fs-discard, fitrim; presets: as-recorded, passthrough, " \
	"sort-merge-async, none, xfs, ext4, ufs, ufs-trimcons, btrfs-async, f2fs, fstrim"
#define PARAM_KEYS "capacity, qd, channels, queued_trim, discard_supported, discard_max_bytes, " \
	"max_discard_segments, discard_granularity, jitter, read_base, write_base, flush_base, trim_base, " \
	"trim_per_range, trim_unmapped_base, trim_bw, read_bw, write_bw, trim_unmapped_bw, initially_mapped"
#define PROFILES "emmc, ftl-sata, hdd-nodiscard, nvme-ftl, nvme, sata-good, sata-sf2281, sdcard, thin-cloud"

TestSuite(badinput_all, .init = th_dir_init, .fini = th_dir_fini);

ParameterizedTestParameters(badinput_all, cli)
{
	static struct bad t[] = {
		/* ---- trace files, through the commands that read them ---- */
		{ .name = "binary bad magic", .file = "in.tsim", .content = "XXXXXXXXXXXXXXXXXXXXXXXX",
		  .args = "replay in.tsim -o out.json",
		  .msg = "trimsim replay: in.tsim: byte 0: bad magic (not a trimsim trace)\n", .rc = 1,
		  .out = "out.json" },
		{ .name = "binary cut header", .file = "in.tsim", .content = "\x01\x4d\x52\x54\xf0\x01\x00\x00\x30\x00",
		  .clen = 10, .args = "export --to blktrace in.tsim -o out.bt",
		  .msg = "trimsim export: in.tsim: byte 10: header cut short (10 of 16 bytes)\n", .rc = 1,
		  .out = "out.bt" },
		{ .name = "jsonl offset overflow", .file = "in.jsonl",
		  .content = HDR REC("FREE", "1", "\"18446744073709551615\"", "1") FOOT(1),
		  .args = "convert in.jsonl out.tsim",
		  .msg = "trimsim convert: in.jsonl: line 2: offset 18446744073709551615 + length 1 overflows\n",
		  .rc = 1, .out = "out.tsim" },
		{ .name = "jsonl missing field", .file = "in.jsonl",
		  .content = HDR "{\"t\":1,\"kind\":\"FREE\",\"op\":\"none\",\"dev\":\"7:0\",\"off\":0,\"ino\":0,"
			  "\"lat\":0,\"flags\":\"\"}\n" FOOT(1), .args = "replay in.jsonl -p xfs -o out.json",
		  .msg = "trimsim replay: in.jsonl: line 2: missing field \"len\"\n", .rc = 1, .out = "out.json" },
		{ .name = "jsonl invalid json", .file = "in.jsonl", .content = HDR "{\"t\":1,\n" FOOT(1),
		  .args = "export --to fio in.jsonl -o out.log",
		  .msg = "trimsim export: in.jsonl: line 2: invalid JSON: string or '}' expected near end of file\n",
		  .rc = 1, .out = "out.log" },
		{ .name = "jsonl unknown kind", .file = "in.jsonl", .content = HDR REC("ERASE", "1", "0", "1") FOOT(1),
		  .args = "replay in.jsonl -o out.json",
		  .msg = "trimsim replay: in.jsonl: line 2: unknown kind \"ERASE\"\n", .rc = 1, .out = "out.json" },
		{ .name = "jsonl future version", .file = "in.jsonl",
		  .content = "{\"trimsim\":2,\"header\":{\"format\":\"trimsim\"}}\n",
		  .args = "convert in.jsonl out.tsim",
		  .msg = "trimsim convert: in.jsonl: line 1: unsupported format version 2 (this trimsim reads 1)\n",
		  .rc = 1, .out = "out.tsim" },
		{ .name = "past the device end", .file = "in.jsonl",
		  .content = HDR REC("INTENT", "1000", "1073737728", "65536") FOOT(1),
		  .args = "replay in.jsonl -p passthrough -o out.json",
		  .msg = "trimsim replay: in.jsonl: line 2: offset 1073737728 + length 65536 is past the end "
			  "of 7:0 (1073741824 bytes)\n", .rc = 1, .out = "out.json" },
		{ .name = "time past ktime_t", .file = "in.jsonl",
		  .content = HDR REC("INTENT", "\"18446744073709551615\"", "0", "4096") FOOT(1),
		  .args = "replay in.jsonl -p passthrough -o out.json",
		  .msg = "trimsim replay: in.jsonl: line 2: time 18446744073709551615 ns is past the "
			  "kernel's ktime_t range (2^63 - 1 ns)\n", .rc = 1, .out = "out.json" },
		/* ---- device profiles and overrides ---- */
		{ .name = "profile unknown", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl -M nosuch -o out.json",
		  .msg = "trimsim replay: unknown profile 'nosuch' (known: " PROFILES "; or give a path to a "
			  ".json file)\n",
		  .rc = 2, .out = "out.json" },
		{ .name = "profile missing file", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl -M ./nofile.json -o out.json",
		  .msg = "trimsim replay: ./nofile.json: No such file or directory\n", .rc = 2, .out = "out.json" },
		{ .name = "profile cut json", .file = "p.json", .content = "{\"model\":\"parametric\",",
		  .args = "models ./p.json",
		  .msg = "trimsim models: ./p.json:1:22: string or '}' expected near end of file\n", .rc = 2 },
		{ .name = "profile engine", .file = "p.json",
		  .content = "{\"model\":\"quantum\",\"description\":\"d\",\"source\":\"s\"}",
		  .args = "models ./p.json",
		  .msg = "trimsim models: ./p.json: 'model' must be \"parametric\" or \"ftl\"\n", .rc = 2 },
		{ .name = "profile no source", .file = "p.json",
		  .content = "{\"model\":\"parametric\",\"description\":\"d\"}", .args = "models ./p.json",
		  .msg = "trimsim models: ./p.json: 'source' must be a non-empty string\n", .rc = 2 },
		{ .name = "profile unknown key", .file = "p.json", .content = PROFILE(",\"qdd\":4"),
		  .args = "models ./p.json",
		  .msg = "trimsim models: ./p.json: unknown option 'qdd' (known: " PARAM_KEYS ")\n", .rc = 2 },
		{ .name = "profile out of range", .file = "p.json", .content = PROFILE(",\"qd\":0"),
		  .args = "models ./p.json",
		  .msg = "trimsim models: ./p.json: option 'qd': 0 is out of range [1, 65535]\n", .rc = 2 },
		{ .name = "profile granularity", .file = "p.json", .content = PROFILE(",\"discard_granularity\":3000"),
		  .args = "models ./p.json",
		  .msg = "trimsim models: ./p.json: option 'discard_granularity': 3000 must be a power of two in "
			  "[512, 1G]\n", .rc = 2 },
		{ .name = "override unknown key", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl -M nvme:bogus=1 -o out.json",
		  .msg = "trimsim replay: models/profiles/nvme.json: override: unknown option 'bogus' (known: "
			  "" PARAM_KEYS
			  ")\n", .rc = 2, .out = "out.json" },
		{ .name = "override range", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl -M nvme:qd=70000 -o out.json",
		  .msg = "trimsim replay: models/profiles/nvme.json: override: option 'qd': 70000 is out of range "
			  "[1, 65535]\n", .rc = 2, .out = "out.json" },
		{ .name = "override no value", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl -M nvme:qd -o out.json",
		  .msg = "trimsim replay: models/profiles/nvme.json: override: option 'qd': expected key=value\n",
		  .rc = 2, .out = "out.json" },
		{ .name = "override size", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl -M nvme:discard_max_bytes=12Q -o out.json",
		  .msg = "trimsim replay: models/profiles/nvme.json: override: option 'discard_max_bytes': "
			  "'12Q' is not a "
			  "valid size (e.g. 4096, 64K, 2M)\n", .rc = 2, .out = "out.json" },
		{ .name = "override duration", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl -M sata-sf2281:trim_base=-5ms -o out.json",
		  .msg = "trimsim replay: models/profiles/sata-sf2281.json: override: option 'trim_base': "
			  "'-5ms' is not a "
			  "valid duration (e.g. 500us, 5ms, 2s, 1w)\n", .rc = 2, .out = "out.json" },
		/* ---- policy strings ---- */
		{ .name = "policy unknown", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl -p frobnicate -o out.json",
		  .msg = "trimsim replay: policy: unknown stage or preset 'frobnicate' (" STAGES ") (column 1)\n"
			  "  frobnicate\n  ^\n", .rc = 2, .out = "out.json" },
		{ .name = "policy open paren", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl -p 'sort-merge-async(qd=4' -o out.json",
		  .msg = "trimsim replay: policy: 'sort-merge-async(': expected ',' or ')' (column 22)\n"
			  "  sort-merge-async(qd=4\n                       ^\n", .rc = 2, .out = "out.json" },
		{ .name = "policy unknown option", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl -p 'merge(maxx=64M)' -o out.json",
		  .msg = "trimsim replay: policy: stage 'merge' has no option 'maxx' (options: max, segments, gap) "
			  "(column 7)\n  merge(maxx=64M)\n        ^\n", .rc = 2, .out = "out.json" },
		{ .name = "policy empty stage", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl -p 'source(free) || sort' -o out.json",
		  .msg = "trimsim replay: policy: expected a stage or preset name (" STAGES ") (column 15)\n"
			  "  source(free) || sort\n                ^\n", .rc = 2, .out = "out.json" },
		{ .name = "policy bad duration", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl -p 'batch(window=soon)' -o out.json",
		  .msg = "trimsim replay: policy: stage 'batch': option 'window': 'soon' is not a valid duration "
			  "(e.g. 500us, 5ms, 2s, 1w) (column 14)\n  batch(window=soon)\n               ^\n", .rc = 2,
		  .out = "out.json" },
		{ .name = "policy bad enum", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl -p 'source(disk)' -o out.json",
		  .msg = "trimsim replay: policy: stage 'source': option 'layer': 'disk' is not one of: none, "
			  "free, intent, "
			  "bio, issue (column 8)\n  source(disk)\n         ^\n", .rc = 2, .out = "out.json" },
		/* ---- importers ---- */
		{ .name = "dtrace no header", .file = "d.txt", .content = "hello\n",
		  .args = "import --from dtrace d.txt -o out.tsim",
		  .msg = "trimsim import: d.txt:1: expected 'trimsim-dtrace 1' (output of tracer/freebsd/trimsim.d)\n",
		  .rc = 1, .out = "out.tsim" },
		{ .name = "dtrace bad number", .file = "d.txt",
		  .content = "trimsim-dtrace 1\nfree 1000 ada0p2 77 x 32768\n",
		  .args = "import --from dtrace d.txt -o out.tsim",
		  .msg = "trimsim import: d.txt:2: expected 'free TIME DEV INO OFFSET BYTES'\n", .rc = 1,
		  .out = "out.tsim" },
		{ .name = "dtrace bad command", .file = "d.txt",
		  .content = "trimsim-dtrace 1\nstart 2000 ada0 erase 0 4096\n",
		  .args = "import --from dtrace d.txt -o out.tsim",
		  .msg = "trimsim import: d.txt:2: CMD must be read, write, delete or flush\n", .rc = 1,
		  .out = "out.tsim" },
		{ .name = "dtrace offset overflow", .file = "d.txt",
		  .content = "trimsim-dtrace 1\nfree 1000 ada0p2 77 18446744073709551615 4096\n",
		  .args = "import --from dtrace d.txt -o out.tsim",
		  .msg = "trimsim import: d.txt:2: offset 18446744073709551615 + length 4096 overflows\n", .rc = 1,
		  .out = "out.tsim" },
		{ .name = "blktrace bad magic", .file = "b.bt",
		  .content = "not a blktrace file at all, just text that is long enough for one!\n",
		  .args = "import --from blktrace b.bt -o out.tsim",
		  .msg = "trimsim import: b.bt: offset 0: bad magic 0x20746f6e (not blktrace data)\n", .rc = 1,
		  .out = "out.tsim" },
		{ .name = "blktrace cut record", .file = "b.bt",
		  .content = "\x07\x74\x61\x65\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00", .clen = 16,
		  .args = "import --from blktrace b.bt -o out.tsim",
		  .msg = "trimsim import: b.bt: offset 0: truncated record (16 of 48 bytes)\n", .rc = 1,
		  .out = "out.tsim" },
		{ .name = "trace-cmd not a trace.dat", .file = "t.dat", .content = "tracing? no\n",
		  .args = "import --from trace-cmd t.dat -o out.tsim",
		  .msg = "trimsim import: t.dat: not a readable trace-cmd trace.dat file\n", .rc = 1,
		  .out = "out.tsim" },
		{ .name = "import missing input", .args = "import --from blktrace nofile.bt -o out.tsim",
		  .msg = "trimsim import: nofile.bt: No such file or directory\n", .rc = 1, .out = "out.tsim" },
		/* ---- command-line options ---- */
		{ .name = "import unknown kind", .file = "d.txt", .content = "x\n",
		  .args = "import --from ktrace d.txt -o out.tsim",
		  .msg = "trimsim import: --from: unknown kind 'ktrace' (blktrace, trace-cmd, dtrace)"
			  "; see 'trimsim import --help'\n", .rc = 2,
		  .out = "out.tsim" },
		{ .name = "import option value", .file = "b.bt", .content = "x",
		  .args = "import --from blktrace --device-size 12Q b.bt -o out.tsim",
		  .msg = "trimsim import: option 'device_size': '12Q' is not a valid size (e.g. 4096, 64K, 2M)"
			  "; see 'trimsim import --help'\n",
		  .rc = 2, .out = "out.tsim" },
		{ .name = "export unknown kind", .file = "in.jsonl", .content = OK,
		  .args = "export --to csv in.jsonl -o out.csv",
		  .msg = "trimsim export: --to: unknown kind 'csv' (blktrace, fio)"
			  "; see 'trimsim export --help'\n", .rc = 2, .out = "out.csv" },
		{ .name = "export bad records", .file = "in.jsonl", .content = OK,
		  .args = "export --to blktrace --records alloc in.jsonl -o out.bt",
		  .msg = "trimsim export: option 'records': 'alloc' is not one of: auto, issue, bio, intent, free"
			  "; see 'trimsim export --help'\n",
		  .rc = 2, .out = "out.bt" },
		{ .name = "convert bad --to", .file = "in.jsonl", .content = OK,
		  .args = "convert --to xml in.jsonl out.xml",
		  .msg = "trimsim convert: option '--to': 'xml' is not one of: binary, jsonl"
			  "; see 'trimsim convert --help'\n", .rc = 2,
		  .out = "out.xml" },
		{ .name = "replay speed 0", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl --speed 0 -o out.json",
		  .msg = "trimsim replay: --speed '0': expected a number above 0, at most 1e9"
			  "; see 'trimsim replay --help'\n", .rc = 2, .out = "out.json" },
		{ .name = "replay timing", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl --timing later -o out.json",
		  .msg = "trimsim replay: --timing 'later': expected trace or asap"
			  "; see 'trimsim replay --help'\n", .rc = 2, .out = "out.json" },
		{ .name = "replay seed", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl --seed -1 -o out.json",
		  .msg = "trimsim replay: --seed '-1': expected an integer"
			  "; see 'trimsim replay --help'\n", .rc = 2, .out = "out.json" },
		{ .name = "replay qd", .file = "in.jsonl", .content = OK, .args = "replay in.jsonl --qd 0 -o out.json",
		  .msg = "trimsim replay: --qd '0': expected 1..65536"
			  "; see 'trimsim replay --help'\n", .rc = 2, .out = "out.json" },
		{ .name = "replay unknown device", .file = "in.jsonl", .content = OK,
		  .args = "replay in.jsonl --dev 8:99 -o out.json",
		  .msg = "trimsim replay: in.jsonl: --dev 8:99: no such device in the trace (7:0)\n", .rc = 1,
		  .out = "out.json" },
		{ .name = "compare jobs", .file = "in.jsonl", .content = OK,
		  .args = "compare in.jsonl -p xfs -M nvme --jobs 0 -o out.json",
		  .msg = "trimsim compare: --jobs '0': expected an integer in 1..1024"
			  "; see 'trimsim compare --help'\n", .rc = 2, .out = "out.json" },
		{ .name = "record duration", .args = "record -o out.tsim --duration forever -m /",
		  .msg = "trimsim record: --duration 'forever': expected a duration above 0 (e.g. 30s, 5m)"
			  "; see 'trimsim record --help'\n", .rc = 2, .out = "out.tsim" },
		{ .name = "record backend", .args = "record -o out.tsim --backend dtrace -m /",
		  .msg = "trimsim record: --backend 'dtrace': choose auto, bpf or tracefs"
			  "; see 'trimsim record --help'\n", .rc = 2,
		  .out = "out.tsim" },
		{ .name = "models unknown", .args = "models nosuch",
		  .msg = "trimsim models: unknown profile 'nosuch' (known: " PROFILES "; or give a path to a "
			  ".json file)\n",
		  .rc = 2 },
		{ .name = "unknown command", .args = "frobnicate",
		  .msg = "trimsim: unknown command 'frobnicate'; see 'trimsim --help'\n", .rc = 2 },
	};
	return cr_make_param_array(struct bad, t, sizeof(t) / sizeof(t[0]));
}

ParameterizedTest(struct bad *b, badinput_all, cli)
{
	char path[512], cmd[1024], *out = NULL, *err = NULL;
	int rc;

	if (b->file[0]) {
		snprintf(path, sizeof(path), "%s/%s", th_dir(), b->file);
		cr_assert_eq(th_write(path, b->content, b->clen ? (size_t)b->clen : strlen(b->content)), 0);
	}
	snprintf(cmd, sizeof(cmd), "cd %s && %s %s", th_dir(), th_trimsim(), b->args);
	rc = th_run(cmd, &out, &err);
	cr_expect_str_eq(err ? err : "", b->msg, "%s: stderr was:\n%s", b->name, err ? err : "");
	cr_expect_eq(rc, b->rc, "%s: exit %d, expected %d", b->name, rc, b->rc);
	if (b->out[0]) {
		snprintf(path, sizeof(path), "%s/%s", th_dir(), b->out);
		cr_expect_neq(access(path, F_OK), 0, "%s: %s was left behind", b->name, b->out);
	}
	/* Nothing else either: no temporary file beside the output. */
	snprintf(cmd, sizeof(cmd), "ls -A %s | grep -v -x -e '%s' | wc -l", th_dir(), b->file[0] ? b->file : "-");
	free(out);
	out = NULL;
	cr_assert_eq(th_run(cmd, &out, NULL), 0);
	cr_expect_str_eq(out, "0\n", "%s: files left in the directory", b->name);
	free(out);
	free(err);
}
