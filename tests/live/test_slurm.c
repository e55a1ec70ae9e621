// SPDX-License-Identifier: GPL-2.0
/*
 * A sweep's plan run by a real Slurm: a single-node cluster from Debian's
 * slurm-wlm and munge (munged, slurmctld and slurmd on localhost, no systemd,
 * everything in the test's directory), the array script compare --plan --slurm
 * wrote submitted as is, and the merged report byte-identical to compare's.
 * The daemons are stopped by their pid files in .fini, also when a check fails.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/helpers.h"
#include "tests/report/plan_fixture.h"

static const char *const daemons[] = { "slurmd", "slurmctld", "munged" };	/* stopped in this order */

static void stop_daemons(void)
{
	for (size_t i = 0; i < sizeof(daemons) / sizeof(daemons[0]); i++) {
		char path[600], *s;
		size_t len;
		pid_t pid;

		snprintf(path, sizeof(path), "%s/%s.pid", th_dir(), daemons[i]);
		if (!(s = th_slurp(path, &len)))
			continue;
		pid = (pid_t)atoi(s);
		free(s);
		if (pid <= 1 || kill(pid, SIGTERM))
			continue;
		for (int k = 0; k < 500 && !kill(pid, 0); k++)	/* up to 5 s, then no more asking */
			usleep(10000);
		if (!kill(pid, 0))
			kill(pid, SIGKILL);
	}
}

static void slurm_init(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root: munged, slurmctld and slurmd run as root here");
	if (th_run("command -v munged && command -v mungekey && command -v slurmctld && command -v slurmd && "
		   "command -v sbatch && command -v sinfo", NULL, NULL))
		cr_skip_test("slurm-wlm or munge is not installed (make deps-test installs them)");
	th_dir_init();
}

static void slurm_fini(void)
{
	stop_daemons();
	th_dir_fini();
}

TestSuite(slurm, .init = slurm_init, .fini = slurm_fini, .timeout = 120);

/* slurm.conf for one node, this host, with every path in dir. */
static void write_conf(const char *dir, const char *host, unsigned port)
{
	char path[600], conf[4096];

	snprintf(conf, sizeof(conf),
		 "ClusterName=trimsimtest\nSlurmctldHost=%s\nSlurmUser=root\nSlurmdUser=root\n"
		 "SlurmctldPort=%u\nSlurmdPort=%u\nAuthType=auth/munge\nAuthInfo=socket=%s/munge.sock\n"
		 "CredType=cred/munge\nStateSaveLocation=%s/state\nSlurmdSpoolDir=%s/spool\n"
		 "SlurmctldPidFile=%s/slurmctld.pid\nSlurmdPidFile=%s/slurmd.pid\n"
		 "SlurmctldLogFile=%s/slurmctld.log\nSlurmdLogFile=%s/slurmd.log\n"
		 "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSelectType=select/cons_tres\n"
		 "SelectTypeParameters=CR_CPU\nAccountingStorageType=accounting_storage/none\n"
		 "JobAcctGatherType=jobacct_gather/none\nJobCompType=jobcomp/none\nReturnToService=2\nMpiDefault=none\n"
		 "NodeName=%s CPUs=2 State=UNKNOWN\nPartitionName=debug Nodes=%s Default=YES MaxTime=INFINITE State=UP\n",
		 host, port, port + 1, dir, dir, dir, dir, dir, dir, dir, host, host);
	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	cr_assert_eq(th_write(path, conf, strlen(conf)), 0);
}

Test(slurm, array_job_merges_to_compare)
{
	static const struct pf_sweep sweep = {
		.traces = { "ext4-discard-sqlite.tsim", "xfs-fstrim-rmtree.tsim" },
		.policies = "xfs,none", .profiles = "nvme", .per_task = 1,
	};
	const char *d = th_dir();
	char host[256], cmd[4096], *out = NULL, *err = NULL;
	unsigned port = 20000 + (unsigned)getpid() % 10000 * 2;	/* two ports; another run may hold others */
	int st, i;

	cr_assert_eq(gethostname(host, sizeof(host)), 0);
	host[strcspn(host, ".")] = 0;
	write_conf(d, host, port);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && mkdir state spool && mungekey --create --keyfile=%s/munge.key && "
		 "munged --force --socket=%s/munge.sock --key-file=%s/munge.key --pid-file=%s/munged.pid "
		 "--log-file=%s/munged.log --seed-file=%s/munged.seed && "
		 "slurmctld -f %s/slurm.conf && slurmd -f %s/slurm.conf",
		 d, d, d, d, d, d, d, d, d);
	st = th_run(cmd, NULL, &err);
	cr_assert_eq(st, 0, "the daemons start: exit %d: %s", st, err);
	free(err);
	err = NULL;
	setenv("SLURM_CONF", strcat(strcpy(cmd, d), "/slurm.conf"), 1);
	for (i = 0; i < 300; i++) {	/* the node registers: up to 30 s */
		free(out);
		out = NULL;
		th_run("sinfo -h -o %T", &out, NULL);
		if (out && strstr(out, "idle"))
			break;
		usleep(100000);
	}
	cr_assert(out && strstr(out, "idle"), "the node never became idle: %s", out);
	free(out);
	out = NULL;

	pf_prepare(&sweep, "--slurm");
	snprintf(cmd, sizeof(cmd), "cd %s && timeout 90 sbatch --wait plan/trimsim.sbatch", d);
	st = th_run(cmd, &out, &err);
	cr_assert_eq(st, 0, "sbatch --wait: exit %d: %s %s", st, out, err);
	cr_assert(out && strstr(out, "Submitted batch job"), "%s", out);
	free(out);
	free(err);
	out = err = NULL;
	/* one log per array task, each naming its cell, no sanitizer report */
	snprintf(cmd, sizeof(cmd), "cat %s/plan/logs/task-*.log", d);
	th_run(cmd, &out, NULL);
	cr_assert(out && th_lines(out) == 4, "4 task logs of one line: %s", out);
	cr_assert(!strstr(out, "Sanitizer") && !strstr(out, "runtime error"), "%s", out);
	free(out);
	pf_merge_same();
}
