#!/usr/bin/env python3
"""Raw tracefs text from record_rm.sh -> trimsim JSON Lines (traces/FORMAT.md).

    tracefs2jsonl.py xfs|ext4 TRACE.txt OUT.jsonl MAJ:MIN DEVSIZE [XFS_AGBLOCKS]

FREE: xfs:xfs_free_extent / ext4:ext4_free_blocks; INTENT: xfs:xfs_discard_extent /
ext4:ext4_discard_blocks; META commit: xfs:xlog_iclog_callbacks_start / jbd2:jbd2_end_commit;
ISSUE: block:block_rq_issue (op from the rwbs letters: a stand-in for the recorder's req_op()).
Block size 4096. The device table describes a loop device (max_discard_segments 1).
"""
import json
import re
import sys
from collections import Counter

fs, src, dst, dev, devsize = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
agblocks = int(sys.argv[6]) if len(sys.argv) > 6 else 0
BS = 4096
line_re = re.compile(r'\s(\d+\.\d+): (\w+): (.*)$')
xfs_re = re.compile(r'no 0x([0-9a-f]+) (?:ag|g)bno 0x([0-9a-f]+) fsbcount 0x([0-9a-f]+)')
rq_re = re.compile(r'\S+ (\S+) (\d+) \(\S*\) (\d+) \+ (\d+)')
recs = []
for line in open(src):
    m = line_re.search(line)
    if not m:
        continue
    t, ev, rest = int(round(float(m.group(1)) * 1e9)), m.group(2), m.group(3)
    if ev in ('xfs_free_extent', 'xfs_discard_extent'):
        agno, agbno, n = (int(x, 16) for x in xfs_re.search(rest).groups())
        recs.append((t, 'FREE' if ev == 'xfs_free_extent' else 'INTENT', 'none',
                     (agno * agblocks + agbno) * BS, n * BS, 0, 'xfs'))
    elif ev == 'ext4_free_blocks':
        ino, blk, n = (int(x) for x in re.search(r'ino (\d+) mode \S+ block (\d+) count (\d+)', rest).groups())
        recs.append((t, 'FREE', 'none', blk * BS, n * BS, ino, 'ext4'))
    elif ev == 'ext4_discard_blocks':
        blk, n = (int(x) for x in re.search(r'blk (\d+) count (\d+)', rest).groups())
        recs.append((t, 'INTENT', 'none', blk * BS, n * BS, 0, 'ext4'))
    elif ev in ('xlog_iclog_callbacks_start', 'jbd2_end_commit'):
        tid = re.search(r'transaction (\d+)', rest)
        recs.append((t, 'META', 'commit', 0, 0, int(tid.group(1)) if tid else 0, ''))
    elif ev == 'block_rq_issue':
        rwbs, _, sec, nsec = rq_re.match(rest).groups()
        op = ('discard' if rwbs.startswith('D') else 'flush' if rwbs.startswith('F') and nsec == '0'
              else 'write' if 'W' in rwbs else 'read' if 'R' in rwbs else None)
        if op:
            recs.append((t, 'ISSUE', op, int(sec) * 512, int(nsec) * 512, 0, ''))
recs.sort(key=lambda r: r[0])
header = {"format": "trimsim", "version": 1, "recorder": "tracefs2jsonl.py", "host": "", "kernel": "",
          "start_ns": recs[0][0], "start_wall": "1970-01-01T00:00:00.000000000Z", "cmdline": sys.argv,
          "devices": [{"name": "loop", "dev": dev, "size": devsize, "logical_block_size": 512,
                       "physical_block_size": 512, "discard_granularity": BS, "discard_max_bytes": 4294966784,
                       "max_discard_segments": 1, "rotational": False, "fs": fs, "fs_block_size": BS,
                       "xfs_agblocks": agblocks, "mount": ""}]}
with open(dst, 'w') as o:
    o.write(json.dumps({"trimsim": 1, "header": header}) + "\n")
    for t, kind, op, off, ln, ino, fl in recs:
        o.write(json.dumps({"t": t, "kind": kind, "op": op, "dev": dev, "off": off, "len": ln, "ino": ino,
                            "lat": 0, "flags": fl}) + "\n")
    o.write(json.dumps({"footer": {"records": len(recs), "lost": 0, "end_ns": recs[-1][0] + 1}}) + "\n")
print(dict(Counter((r[1], r[2]) for r in recs)))
