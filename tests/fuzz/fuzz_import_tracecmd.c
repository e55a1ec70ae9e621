// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the trace-cmd importer (fuzz_import.h), with trace.dat-aware
 * mutation (fuzz_mutate_tracecmd.h). The library's leak suppressions for
 * libtraceevent/libtracecmd live beside the importer (traces/import/tracecmd.c,
 * __lsan_default_suppressions).
 *
 * The import is the whole path `trimsim import` runs, the child that reads the
 * file included (tc_import_child() in traces/import/tracecmd.c; tcfile.c says
 * why libtracecmd runs only there): faults inside libtracecmd and
 * libtraceevent on malformed files (a NULL read in tracecmd_close(), strdup()
 * and strcmp() past unterminated strings, kbuffer reading past a page, heap
 * overflows that fault later or never) end that child, and the import turns
 * them into a one-line error. The child costs a fork: here the fork of a small
 * server process (the fork server below), not of the fuzzer.
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sanitizer/common_interface_defs.h>

#include "traces/util.h"
#include "traces/import/tcfile.h"
#include "tests/fuzz/fuzz_util.h"

#define FUZZ_IMPORTER importer_tracecmd
/*
 * The reading child's fork failing is this process's state, not the input's: every later input
 * would end there, cheaply, and the fuzzer would run on while testing nothing (it did, see
 * the allocation cap below).
 */
#define FUZZ_IMPORT_FATAL ": fork: "
/*
 * The allocation cap: from the first input on, an allocation above 1 MiB fails (a section of
 * a 128 KiB input, decompressed, is far less), in both builds, in the fuzzer process and in the
 * reading children. Without ASan (make fuzz FUZZ_SAN=ubsan) there was no cap at first: the sizes
 * libtracecmd mallocs from the file and then leaks (a format buffer whose read fails: suppressed
 * for LeakSanitizer, see traces/import/tracecmd.c) added up to 25 GB of untouched virtual memory
 * in a few minutes, and the reading child's fork() then failed with ENOMEM (the kernel's overcommit
 * heuristic charges a fork all private writable memory): every later input ended at the fork,
 * 580 inputs/s of nothing. The ASan build had max_allocation_size_mb=64 instead (below), so the
 * allocation-failure paths the fast build takes between 1 and 64 MiB were never run under ASan;
 * now both wrap malloc, calloc and realloc the same way (glibc's, or ASan's interceptors, which
 * ASan's runtime exports as weak malloc/calloc/realloc). libFuzzer's own tables (a 20 MB
 * InputCorpus) are allocated before the first input.
 */
#define FUZZ_TC_ALLOC_MAX ((size_t)1 << 20)
static bool fuzz_tc_capped;	/* set at the first input, and in the fork server */

#if defined(__has_feature) && __has_feature(address_sanitizer)
#define FUZZ_TC_REAL(f) __interceptor_##f
#else
#define FUZZ_TC_REAL(f) __libc_##f
#endif
void *FUZZ_TC_REAL(malloc)(size_t n);
void *FUZZ_TC_REAL(calloc)(size_t n, size_t size);
void *FUZZ_TC_REAL(realloc)(void *p, size_t n);

void *malloc(size_t n)
{
	if (fuzz_tc_capped && n > FUZZ_TC_ALLOC_MAX) {
		errno = ENOMEM;
		return NULL;
	}
	return FUZZ_TC_REAL(malloc)(n);
}

void *calloc(size_t n, size_t size)
{
	size_t all;

	if (fuzz_tc_capped && (__builtin_mul_overflow(n, size, &all) || all > FUZZ_TC_ALLOC_MAX)) {
		errno = ENOMEM;
		return NULL;
	}
	return FUZZ_TC_REAL(calloc)(n, size);
}

void *realloc(void *p, size_t n)
{
	if (fuzz_tc_capped && n > FUZZ_TC_ALLOC_MAX) {
		errno = ENOMEM;
		return NULL;
	}
	return FUZZ_TC_REAL(realloc)(p, n);
}

/*
 * libtracecmd (3.1.6) leaks the mmap()ed pages of a file it gives up on: tracecmd_close() frees
 * its list of page maps without munmap(). Each leaked mapping holds an earlier input's memfd;
 * after about 60,000 inputs the fuzzer reached vm.max_map_count (65,530 mappings, 5,212 of them
 * memfds a minute into a run), every mmap() failed and the run ended in std::bad_alloc. Before
 * an input nothing may map an earlier input's memfd (fuzz_memfile() names them "fuzz"): what does
 * is unmapped.
 */
static void fuzz_tc_unmap_leaks(void)
{
	struct { unsigned long lo, hi; } m[512];
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096];
	size_t n = 0;

	if (!f)
		return;
	while (n < sizeof(m) / sizeof(m[0]) && fgets(line, sizeof(line), f))
		if (strstr(line, " /memfd:fuzz") && sscanf(line, "%lx-%lx", &m[n].lo, &m[n].hi) == 2)
			n++;
	fclose(f);
	for (size_t i = 0; i < n; i++)
		munmap((void *)m[i].lo, m[i].hi - m[i].lo);
}

static void fuzz_tc_prepare(const uint8_t *data, size_t size)
{
	fuzz_tc_capped = true;
	fuzz_tc_unmap_leaks();
	fuzz_ring_keep(data, size);
}
#define FUZZ_IMPORT_PREPARE(data, size) fuzz_tc_prepare(data, size)
#include "tests/fuzz/fuzz_import.h"
#include "tests/fuzz/fuzz_mutate_tracecmd.h"

/*
 * libtracecmd mallocs sizes read from the file and checks for NULL: glibc
 * returns NULL for an impossible size (2^57 bytes from one changed byte), and
 * the import fails with one line. AddressSanitizer aborts on such a request by
 * default; here it answers as glibc does, so the harness tests what runs in
 * production (libFuzzer's -malloc_limit_mb still reports a large allocation
 * that succeeds). Input: tests/traces/test_impexp_cli.c builds it from the seed.
 * libtracecmd also mallocs sizes from the file before it compares them with
 * the file's length; AddressSanitizer writes the shadow of a large block (an
 * eighth of its size) at malloc and again at free, which took 97% of the CPU
 * in a profile of a campaign (a 320 MB format buffer per input). Above 64 MiB
 * (more than any section of a 128 KiB input holds) malloc fails here, as it
 * does past the memory a machine has, and libtracecmd returns its error; from
 * the first input on the 1 MiB cap above applies, as in the UBSan build.
 * A small quarantine: with the default 256 MiB every input's allocations (the
 * event formats libtraceevent parses) landed on fresh pages, and page faults
 * were half of the CPU time in this VM.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1:quarantine_size_mb=16:max_allocation_size_mb=64";
}

/*
 * In the reading child a sanitizer report (libtracecmd reading past a block)
 * must end the child alone: libFuzzer's death callback would write a crash
 * file for the parent's input and print its statistics. Without it the child
 * exits with AddressSanitizer's code, and the import refuses the file.
 */
static void fuzz_tracecmd_child(void)
{
	__sanitizer_set_death_callback(NULL);
}

/*
 * The fork server. An import reads the file in a child (tc_child_start() and tc_child_wait() in
 * traces/import/tcfile.c, whose defaults fork the calling process); forking this 30 MB fuzzer
 * process was 19 of the 22 ms of CPU an input cost in the UBSan build (copy-on-write faults and
 * TLB flushes, slow in this VM). So LLVMFuzzerInitialize(), before libFuzzer allocates its
 * tables, forks a server that stays small, and tc_child_start() below sends it the input (an fd
 * of the memfd) and the write end of the records' pipe, as SCM_RIGHTS over a SOCK_SEQPACKET
 * pair, with the child's argument as the message; the server forks a child per request that
 * runs the same body, tc_import_child(), on /proc/self/fd/N of that fd, and answers with the
 * child's pid and then its wait status. The child inherits what the old one did from this
 * process: the allocation cap, the pthread_atfork() handler above, the ASan options.
 *
 * A hung child: the fuzzer waits in read() or recv(), and libFuzzer's alarm ends the fuzzer as
 * a timeout of this input; the server (PR_SET_PDEATHSIG) and then its child die with it.
 * SIGINT/SIGTERM (trimsim_stop, set by trimsim's handler; libFuzzer's own handlers leave
 * it 0) kill the child as tc_child_wait() in tcfile.c does. If the server is gone, no child
 * can run: the error names ": fork: ", FUZZ_IMPORT_FATAL, and the run stops.
 */
static int fuzz_tc_srv = -1;	/* the fuzzer's end of the pair */
static pid_t fuzz_tc_srv_pid;

/*
 * The child's coverage. The importer's own decoding (tc_record() and the field checks in
 * traces/import/tracecmd.c) runs in the child, whose hits of libFuzzer's inline 8-bit counters
 * (the __sancov_cntrs section) libFuzzer never sees: with the child alone the harness reached
 * 110 edges on the seeds and regression inputs where the in-process import reached 172. So the
 * child starts from zeroed counters and, when tc_import_child() returns, copies them into a
 * shared mapping made before the server was forked; tc_child_wait() adds them to this process's
 * counters before libFuzzer reads them after the input. A child that faults or is killed
 * gives nothing (the mapping is cleared after every input).
 */
static uint8_t *fuzz_tc_cntrs;	/* this process's counters (the __sancov_cntrs section) */
static size_t fuzz_tc_ncntrs;
static uint8_t *fuzz_tc_cov;	/* shared with the server and its children */

/*
 * The counters' section, from this executable's section headers (a program referring to
 * __start___sancov_cntrs in an instrumented file lost its counters: libFuzzer saw none).
 */
static int fuzz_tc_bias(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uintptr_t *)data = info->dlpi_addr;	/* the first object is the executable */
	return 1;
}

static void fuzz_tc_find_cntrs(void)
{
	FILE *f = fopen("/proc/self/exe", "rb");
	Elf64_Ehdr eh;
	Elf64_Shdr sh, strsh;
	uintptr_t bias = 0;
	char name[32];

	if (!f)
		return;
	if (fread(&eh, sizeof(eh), 1, f) != 1 || eh.e_shentsize != sizeof(sh) ||
	    fseek(f, (long)(eh.e_shoff + (uint64_t)eh.e_shstrndx * sizeof(sh)), SEEK_SET) ||
	    fread(&strsh, sizeof(strsh), 1, f) != 1)
		goto out;
	dl_iterate_phdr(fuzz_tc_bias, &bias);
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		if (fseek(f, (long)(eh.e_shoff + (uint64_t)i * sizeof(sh)), SEEK_SET) || fread(&sh, sizeof(sh), 1, f) != 1 ||
		    fseek(f, (long)(strsh.sh_offset + sh.sh_name), SEEK_SET) || !fgets(name, sizeof(name), f))
			break;
		if (!strcmp(name, "__sancov_cntrs") && sh.sh_size) {
			fuzz_tc_cntrs = (uint8_t *)(bias + sh.sh_addr);
			fuzz_tc_ncntrs = sh.sh_size;
			break;
		}
	}
out:
	fclose(f);
}

static size_t fuzz_tc_cov_size(void)
{
	return fuzz_tc_ncntrs;
}

static void fuzz_tc_cov_merge(void)
{
	size_t n = fuzz_tc_cov_size();

	for (size_t i = 0; fuzz_tc_cov && i < n; i++) {
		unsigned sum = fuzz_tc_cntrs[i] + fuzz_tc_cov[i];

		fuzz_tc_cntrs[i] = sum > 255 ? 255 : (uint8_t)sum;
	}
	if (fuzz_tc_cov)
		memset(fuzz_tc_cov, 0, n);
}

struct fuzz_tc_msg {
	int32_t kind;	/* FUZZ_TC_PID: val is the child's pid; FUZZ_TC_STATUS: its wait status; FUZZ_TC_ERR: errno */
	int32_t val;
};
enum { FUZZ_TC_PID, FUZZ_TC_STATUS, FUZZ_TC_ERR };
#define FUZZ_TC_ARG_MAX 256

static int fuzz_tc_answer(int s, int32_t kind, int32_t val)
{
	struct fuzz_tc_msg m = { kind, val };

	return send(s, &m, sizeof(m), MSG_NOSIGNAL) == (ssize_t)sizeof(m) ? 0 : -1;
}

/* One request: the input's fd and the pipe's write end in its SCM_RIGHTS, the argument; -1 when the fuzzer is gone. */
static int fuzz_tc_request(int s, int fd[2], char *arg, size_t *arglen)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { arg, FUZZ_TC_ARG_MAX };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	ssize_t n;

	while ((n = recvmsg(s, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	c = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL;
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(2 * sizeof(int)))
		return -1;
	memcpy(fd, CMSG_DATA(c), 2 * sizeof(int));
	*arglen = (size_t)n;
	return 0;
}

static void fuzz_tc_serve(int s)
{
	char arg[FUZZ_TC_ARG_MAX];
	size_t arglen;
	int fd[2], st;

	fuzz_tc_capped = true;
	while (!fuzz_tc_request(s, fd, arg, &arglen)) {
		pid_t pid = fork();

		if (pid == 0) {
			char path[64];

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(s);
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd[0]);
			if (fuzz_tc_cov)
				memset(fuzz_tc_cntrs, 0, fuzz_tc_cov_size());
			st = tc_import_child(path, arg, arglen, fd[1]);
			if (fuzz_tc_cov)
				memcpy(fuzz_tc_cov, fuzz_tc_cntrs, fuzz_tc_cov_size());
			_exit(st);
		}
		close(fd[0]);
		close(fd[1]);
		if (pid < 0) {
			if (fuzz_tc_answer(s, FUZZ_TC_ERR, errno))
				break;
			continue;
		}
		if (fuzz_tc_answer(s, FUZZ_TC_PID, pid))
			break;
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR)
				_exit(2);
		if (fuzz_tc_answer(s, FUZZ_TC_STATUS, st))
			break;
	}
	_exit(0);
}

static int fuzz_tc_server_start(void)
{
	pid_t parent = getpid(), pid;
	int sv[2];

	fuzz_tc_find_cntrs();
	if (fuzz_tc_cov_size()) {
		fuzz_tc_cov = mmap(NULL, fuzz_tc_cov_size(), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (fuzz_tc_cov == MAP_FAILED)
			return -errno;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		close(sv[0]);
		fuzz_tc_serve(sv[1]);
	}
	close(sv[1]);
	fuzz_tc_srv = sv[0];
	fuzz_tc_srv_pid = pid;
	return 0;
}

/*
 * At a normal exit the server sees the end of the pair and leaves; waiting for it puts its
 * CPU time (and its children's, which it waited for) into this process's rusage, which
 * time(1) reports.
 */
static void fuzz_tc_server_stop(void)
{
	close(fuzz_tc_srv);
	while (waitpid(fuzz_tc_srv_pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static int fuzz_tc_gone(const char *path, const char *what, int e, char *err, size_t errlen)
{
	return ts_errf(err, errlen, e ? -e : -EPIPE, "%s: fork: fork server: %s%s%s", path, what,
		       e ? ": " : "", e ? strerror(e) : "");
}

/* The server's next answer; -EINTR when a signal came first. */
static int fuzz_tc_recv(struct fuzz_tc_msg *m)
{
	ssize_t n = recv(fuzz_tc_srv, m, sizeof(*m), 0);

	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(*m) ? 0 : -EPIPE;
}

int tc_child_start(const char *path, const void *arg, size_t arglen, struct tc_child *c, char *err, size_t errlen)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))] = { 0 };
	struct iovec iov = { (void *)arg, arglen };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	struct fuzz_tc_msg m;
	int fd[2], p[2], ret;
	ssize_t n;

	if (arglen == 0 || arglen > FUZZ_TC_ARG_MAX)
		return ts_errf(err, errlen, -EINVAL, "%s: fork server: an argument of %zu bytes", path, arglen);
	if ((fd[0] = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return ts_errf(err, errlen, -errno, "%s: %s", path, strerror(errno));
	if (pipe2(p, O_CLOEXEC)) {
		ret = ts_errf(err, errlen, -errno, "%s: pipe: %s", path, strerror(errno));
		close(fd[0]);
		return ret;
	}
	fd[1] = p[1];
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(fd));
	memcpy(CMSG_DATA(cm), fd, sizeof(fd));
	while ((n = sendmsg(fuzz_tc_srv, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	close(fd[0]);
	close(p[1]);
	if (n != (ssize_t)arglen) {
		close(p[0]);
		return fuzz_tc_gone(path, "request", n < 0 ? errno : 0, err, errlen);
	}
	while ((ret = fuzz_tc_recv(&m)) == -EINTR)
		;
	if (ret) {
		close(p[0]);
		return fuzz_tc_gone(path, "answer", -ret, err, errlen);
	}
	if (m.kind != FUZZ_TC_PID) {
		close(p[0]);
		return ts_errf(err, errlen, -m.val, "%s: fork: %s", path, strerror(m.val));
	}
	*c = (struct tc_child){ .path = path, .pid = m.val, .fd = p[0] };
	if (trimsim_stop)
		kill(c->pid, SIGKILL);
	return 0;
}

int tc_child_wait(struct tc_child *c, int *status, char *err, size_t errlen)
{
	struct fuzz_tc_msg m;
	int ret;

	while ((ret = fuzz_tc_recv(&m)) == -EINTR)
		if (trimsim_stop)	/* SIGINT/SIGTERM: its records are not wanted any more */
			kill(c->pid, SIGKILL);
	if (ret || m.kind != FUZZ_TC_STATUS)
		return fuzz_tc_gone(c->path, "exited", ret ? -ret : 0, err, errlen);
	*status = m.val;
	fuzz_tc_cov_merge();
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int ret;

	(void)argc;
	/*
	 * libtracecmd and libtraceevent are linked for lazy binding: every reading child resolved
	 * the same few hundred symbols again (do_lookup_x, and a copy-on-write fault per GOT
	 * page), 8% of the CPU. Bound at start instead (once, by running again with LD_BIND_NOW;
	 * only when and how symbols are resolved changes).
	 */
	if (!getenv("LD_BIND_NOW") && !setenv("LD_BIND_NOW", "1", 1))
		execv("/proc/self/exe", *argv);	/* returns only on failure: run on, lazily bound */
	if ((ret = pthread_atfork(NULL, NULL, fuzz_tracecmd_child)) || (ret = -fuzz_tc_server_start()) ||
	    (ret = atexit(fuzz_tc_server_stop) ? ENOMEM : 0)) {
		fprintf(stderr, "fuzz harness: cannot start the fork server: %s\n", strerror(ret));
		exit(1);
	}
	return 0;
}

/* A trace.dat at all: the magic, and longer than its header_page and header_event texts alone. */
static bool fuzz_tracecmd_file(const uint8_t *data, size_t size)
{
	return size >= 512 && !memcmp(data, "\027\010Dtracing", 10);
}

/*
 * Only trace.dat files are mutated (fuzz_tracecmd_file()), and a mutation does not turn one
 * into something that is not, nor cut it to less than half: the result is mutated again, up
 * to four times, else the input stays as it was. Without this, libFuzzer's own byte mutation
 * (one mutation in eight: EraseBytes) cut 1-30 byte inputs out of the seeds and the small
 * regression inputs; the header check's few paths are rare features, so they were kept and
 * the entropic schedule gave them most of its energy: 500K executions at 300-360/s reached
 * 202 features from a corpus of 19 inputs, 8 of them under 30 bytes, where 1,500 executions
 * from the two uncompressed seeds alone reach 372. A non-trace.dat input (a regression input
 * of the header check, v7-cut-after-compression.dat) still runs whenever a corpus is loaded.
 * (libFuzzer 14 has no way for the target to refuse an input: a return of -1 is ignored.)
 */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	uint8_t *orig;
	size_t n = 0;

	if (fm_raw())
		return LLVMFuzzerMutate(data, size, max_size);
	if (!fuzz_tracecmd_file(data, size))
		return 0;	/* libFuzzer asks again, then runs it unchanged */
	if (!(orig = malloc(size)))
		return fm_tracecmd_mutate(data, size, max_size, seed);
	memcpy(orig, data, size);
	for (unsigned i = 0; i < 4; i++) {
		if (i)
			memcpy(data, orig, size);
		n = fm_tracecmd_mutate(data, size, max_size, seed + i * 0x9e3779b9u);
		if (fuzz_tracecmd_file(data, n) && n >= size / 2)
			break;
	}
	if (!fuzz_tracecmd_file(data, n) || n < size / 2) {
		memcpy(data, orig, size);
		n = size;
	}
	free(orig);
	return n;
}
