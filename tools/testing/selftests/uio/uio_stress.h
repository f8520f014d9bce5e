/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared plumbing of the UIO reliability tests (uio_stress_test,
 * uio_fuzz_test): short/long mode parameters, a forking runner that gives
 * every subtest its own time limit, SIGBUS recovery in threads, and the
 * before/after figures that show nothing leaked (memory, fds, minors).
 *
 * Mode: UIO_STRESS_MODE=long (or -l) selects the long defaults; every
 * parameter can also be set alone through its own environment variable.
 */
#ifndef UIO_STRESS_H
#define UIO_STRESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>

#include "kselftest.h"
#include "uio_util.h"

#define STUB_DIR	"/sys/devices/platform/uio_test/"
#define STUB_NAME	"uio_test"
#define STUB_MODULE	"uio_test_mod"
#define STUB_KO		"/modules/uio_test_mod.ko"
#define STUB_LOGICAL_SIZE	(4 * 4096)
#define STUB_VIRTUAL_SIZE	(3 * 4096)
#define STUB_DMA_SIZE		(2 * 4096)
#define STUB_DMA_MAP		2
#define STUB_LOGICAL_SEED	0x5a
#define STUB_VIRTUAL_SEED	0xa5
#define STUB_DMA_SEED		0x3c

#define PCI_DEVICES	"/sys/bus/pci/devices"
#define UPG_DRIVER	"/sys/bus/pci/drivers/uio_pci_generic"
#define EDU_ID		0x00
#define EDU_ID_MAGIC	0xed		/* low byte of the ID register */
#define EDU_IRQ_STATUS	0x24
#define EDU_IRQ_RAISE	0x60
#define EDU_IRQ_ACK	0x64

static bool stress_long;	/* long mode selected */

/* A parameter: $env if set, else the short or long default. */
static inline unsigned long long stress_param(const char *env,
					      unsigned long long short_val,
					      unsigned long long long_val)
{
	const char *v = getenv(env);

	if (v && *v)
		return strtoull(v, NULL, 0);
	return stress_long ? long_val : short_val;
}

static inline void stress_init_mode(void)
{
	const char *m = getenv("UIO_STRESS_MODE");

	if (m && !strcmp(m, "long"))
		stress_long = true;
}

/* --- failure reporting inside a subtest -------------------------------- */

static int stress_failures;	/* checks failed in this (child) process */

#define stress_check(cond, fmt, ...) ({					\
	bool __ok = (cond);						\
	if (!__ok) {							\
		__atomic_add_fetch(&stress_failures, 1, __ATOMIC_RELAXED); \
		ksft_print_msg("%s:%d: check failed: %s: " fmt "\n",	\
			       __func__, __LINE__, #cond, ##__VA_ARGS__); \
	}								\
	__ok;								\
})

/* --- the runner --------------------------------------------------------- */

/* Exit code of a subtest process that skipped. */
#define STRESS_SKIP	KSFT_SKIP

/*
 * Run fn in a child process with a time limit of timeout_s seconds; the
 * child's exit code is the verdict (0 pass, STRESS_SKIP skip, else fail).
 * A timeout kills the child and all its threads, so a hang is "not ok".
 */
static inline void stress_run(const char *name, int (*fn)(void),
			      unsigned int timeout_s)
{
	double start = uio_now();
	int status, ret;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ksft_test_result_fail("%s (fork: %s)\n", name, strerror(errno));
		return;
	}
	if (pid == 0) {
		alarm(timeout_s);
		ret = fn();
		fflush(stdout);
		_exit(ret == STRESS_SKIP ? ret : (ret || stress_failures));
	}
	if (waitpid(pid, &status, 0) != pid) {
		ksft_test_result_fail("%s (waitpid)\n", name);
		return;
	}
	ksft_print_msg("%s: %.1f s\n", name, uio_now() - start);
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		ksft_test_result_fail("%s # TIMEOUT after %u s\n", name, timeout_s);
	else if (WIFSIGNALED(status))
		ksft_test_result_fail("%s (killed by signal %d)\n", name,
				      WTERMSIG(status));
	else if (WEXITSTATUS(status) == STRESS_SKIP)
		ksft_test_result_skip("%s\n", name);
	else
		ksft_test_result(WEXITSTATUS(status) == 0, "%s\n", name);
}

/* Is name selected by the filter arguments argv[first..argc)? */
static inline bool stress_selected(const char *name, int argc, char **argv,
				   int first)
{
	int i;

	if (first >= argc)
		return true;
	for (i = first; i < argc; i++)
		if (strstr(name, argv[i]))
			return true;
	return false;
}

/* --- SIGBUS in threads -------------------------------------------------- */

/* Armed by the thread; volatile, or the compiler drops the arming store. */
static __thread sigjmp_buf * volatile stress_bus_jmp;

static void stress_sigbus(int sig)
{
	if (stress_bus_jmp)
		siglongjmp(*stress_bus_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Route SIGBUS to the faulting thread's sigsetjmp() point. */
static inline void stress_catch_sigbus(void)
{
	struct sigaction sa = { .sa_handler = stress_sigbus };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

/*
 * Read the 32-bit word at addr; false if that raised SIGBUS. The value
 * lands in *val.
 */
static inline bool stress_peek(volatile uint32_t *addr, uint32_t *val)
{
	sigjmp_buf jb;

	if (sigsetjmp(jb, 1)) {
		stress_bus_jmp = NULL;
		return false;
	}
	stress_bus_jmp = &jb;
	*val = *addr;
	stress_bus_jmp = NULL;
	return true;
}

/* Write back the word at addr as it is; false on SIGBUS. */
static inline bool stress_poke_same(volatile uint32_t *addr)
{
	sigjmp_buf jb;

	if (sigsetjmp(jb, 1)) {
		stress_bus_jmp = NULL;
		return false;
	}
	stress_bus_jmp = &jb;
	*addr = *addr;
	stress_bus_jmp = NULL;
	return true;
}

/*
 * Kernel memory a subtest may leave behind (per-CPU page lists, lazily
 * freed stacks and caches); a leaked device per cycle exceeds it in long
 * mode, and the minors and fds are compared exactly anyway. KASAN's
 * quarantine keeps freed objects in the slabs: on a KASAN kernel raise it
 * (UIO_STRESS_TEST_MEM_KB) and let kmemleak judge.
 */
#define STRESS_TEST_MEM_KB	\
	((long long)stress_param("UIO_STRESS_TEST_MEM_KB", 4096, 4096))

/* --- leak figures ------------------------------------------------------- */

/* A field of /proc/meminfo in kB, or -1. */
static inline long long stress_meminfo(const char *field)
{
	char line[256];
	size_t len = strlen(field);
	long long v = -1;
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':') {
			v = strtoll(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/**
 * struct stress_snapshot - what a leak would change
 * @used_kb:	MemTotal - MemFree - Buffers - Cached - AnonPages - the
 *		per-CPU free lists, after dropping caches: kernel memory
 *		(user memory is our own)
 * @unreclaim_kb: SUnreclaim (slab that cannot be reclaimed)
 * @meminfo:	raw /proc/meminfo values, in file order
 * @vmstat:	raw /proc/vmstat values, in file order
 * @slab:	active objects of each slab cache
 * @slab_names:	the names of those caches
 * @nslab:	number of entries in @slab and @slab_names
 * @fds:	open file descriptors of this process
 * @minors:	UIO devices present
 * @max_minor:	highest minor present
 */
struct stress_snapshot {
	long long	meminfo[64];
	long long	vmstat[256];
	long long	slab[512];
	char		slab_names[512][64];
	int		nslab;
	long long	used_kb;
	long long	unreclaim_kb;
	int		fds;
	int		minors;
	int		max_minor;
};

static inline int stress_count_fds(void)
{
	struct dirent *de;
	DIR *dir;
	int n = 0;

	dir = opendir("/proc/self/fd");
	if (!dir)
		return -1;
	while ((de = readdir(dir)))
		n += de->d_name[0] != '.';
	closedir(dir);
	return n - 1;	/* the directory's own fd */
}

/* Number of UIO devices; their highest minor in *max. */
static inline int stress_minors(int *max)
{
	struct dirent *de;
	DIR *dir;
	int n = 0;

	*max = -1;
	dir = opendir(UIO_CLASS);
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "uio", 3))
			continue;
		n++;
		if (atoi(de->d_name + 3) > *max)
			*max = atoi(de->d_name + 3);
	}
	closedir(dir);
	return n;
}

/* Every /proc/meminfo value and every slab cache's size, for the diff. */
static inline void stress_snapshot_details(struct stress_snapshot *s)
{
	char line[512], name[64];
	long long active, num, size;
	int i = 0;
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	while (f && i < 64 && fgets(line, sizeof(line), f))
		s->meminfo[i++] = strtoll(strchr(line, ':') + 1, NULL, 10);
	if (f)
		fclose(f);
	i = 0;
	f = fopen("/proc/vmstat", "r");
	while (f && i < 256 && fgets(line, sizeof(line), f))
		s->vmstat[i++] = strtoll(strchr(line, ' ') + 1, NULL, 10);
	if (f)
		fclose(f);
	s->nslab = 0;
	f = fopen("/proc/slabinfo", "r");
	while (f && s->nslab < 512 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lld %lld %lld", name, &active, &num,
			   &size) != 4)
			continue;
		memcpy(s->slab_names[s->nslab], name, sizeof(name));
		s->slab[s->nslab++] = active * size;
	}
	if (f)
		fclose(f);
}

/* Print what grew by more than 64 kB between two snapshots. */
static inline void stress_print_growth(const struct stress_snapshot *a,
				       const struct stress_snapshot *b)
{
	char line[512];
	int i = 0, j;
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	while (f && i < 64 && fgets(line, sizeof(line), f)) {
		if (b->meminfo[i] - a->meminfo[i] > 64 ||
		    b->meminfo[i] - a->meminfo[i] < -64)
			ksft_print_msg("  meminfo %.*s %+lld kB\n",
				       (int)(strchr(line, ':') - line), line,
				       b->meminfo[i] - a->meminfo[i]);
		i++;
	}
	if (f)
		fclose(f);
	i = 0;
	f = fopen("/proc/vmstat", "r");
	while (f && i < 256 && fgets(line, sizeof(line), f)) {
		long long d = b->vmstat[i] - a->vmstat[i];

		/* Page counts (nr_*) that moved by more than 64 kB. */
		if (!strncmp(line, "nr_", 3) && (d > 16 || d < -16))
			ksft_print_msg("  vmstat %.*s %+lld pages\n",
				       (int)(strchr(line, ' ') - line), line, d);
		i++;
	}
	if (f)
		fclose(f);
	for (i = 0; i < b->nslab; i++)
		for (j = 0; j < a->nslab; j++)
			if (!strcmp(a->slab_names[j], b->slab_names[i]) &&
			    b->slab[i] - a->slab[j] > 64 * 1024)
				ksft_print_msg("  slab %s %+lld kB\n",
					       b->slab_names[i],
					       (b->slab[i] - a->slab[j]) / 1024);
}

/* Free pages parked in the per-CPU lists, which MemFree does not count. */
static inline long long stress_pcp_kb(void)
{
	char line[256];
	long long pages = 0;
	FILE *f;
	char *p;

	f = fopen("/proc/zoneinfo", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "count:");
		if (p && !strstr(line, "nr_"))
			pages += strtoll(p + 6, NULL, 10);
	}
	fclose(f);
	return pages * (sysconf(_SC_PAGESIZE) / 1024);
}

static inline void stress_snapshot(struct stress_snapshot *s)
{
	/* Freed objects may sit in RCU callbacks or per-CPU lists. */
	sync();
	usleep(200 * 1000);
	uio_sysfs_write("/proc/sys/vm/drop_caches", "3");
	stress_snapshot_details(s);
	s->used_kb = stress_meminfo("MemTotal") - stress_meminfo("MemFree") -
		     stress_meminfo("Buffers") - stress_meminfo("Cached") -
		     stress_meminfo("AnonPages") - stress_pcp_kb();
	s->unreclaim_kb = stress_meminfo("SUnreclaim");
	s->fds = stress_count_fds();
	s->minors = stress_minors(&s->max_minor);
}

/*
 * Compare two snapshots: no fd and no minor may be left behind, memory
 * must be back within bound_kb. Prints the figures; true if all held.
 */
static inline bool stress_compare(const char *what,
				  const struct stress_snapshot *a,
				  const struct stress_snapshot *b,
				  long long bound_kb)
{
	ksft_print_msg("%s: memory used %lld -> %lld kB (%+lld, bound %lld)\n",
		       what, a->used_kb, b->used_kb, b->used_kb - a->used_kb,
		       bound_kb);
	ksft_print_msg("%s: SUnreclaim %lld -> %lld kB, fds %d -> %d\n",
		       what, a->unreclaim_kb, b->unreclaim_kb, a->fds, b->fds);
	ksft_print_msg("%s: uio devices %d -> %d, max minor %d -> %d\n",
		       what, a->minors, b->minors, a->max_minor, b->max_minor);
	if (b->used_kb - a->used_kb > bound_kb)
		stress_print_growth(a, b);
	return b->used_kb - a->used_kb <= bound_kb &&
	       b->fds == a->fds && b->minors == a->minors &&
	       b->max_minor == a->max_minor;
}

/* --- devices ------------------------------------------------------------ */

static inline int stub_register(bool on)
{
	return uio_sysfs_write(STUB_DIR "registered", on ? "1" : "0");
}

static inline int stub_fire(unsigned int n)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", n);
	return uio_sysfs_write(STUB_DIR "fire", buf);
}

/* The byte the stub wrote at offset i of a buffer seeded with seed. */
static inline uint8_t stub_pattern(size_t i, uint8_t seed)
{
	return seed ^ (uint8_t)i ^ (uint8_t)(i >> 8);
}

static inline uint32_t stub_pattern32(size_t off, uint8_t seed)
{
	return stub_pattern(off, seed) | stub_pattern(off + 1, seed) << 8 |
	       stub_pattern(off + 2, seed) << 16 |
	       (uint32_t)stub_pattern(off + 3, seed) << 24;
}

/* PCI address of the n-th edu device (0-based); -ENOENT if none. */
static inline int edu_nth(int n, char *addr, size_t len)
{
	struct dirent **names;
	char path[PATH_MAX];
	int i, count, ret = -ENOENT;

	count = scandir(PCI_DEVICES, &names, NULL, alphasort);
	if (count < 0)
		return -errno;
	for (i = 0; i < count; i++) {
		const char *d = names[i]->d_name;

		if (d[0] == '.')
			continue;
		snprintf(path, sizeof(path), PCI_DEVICES "/%s/vendor", d);
		if (uio_sysfs_num(path) != 0x1234)
			continue;
		snprintf(path, sizeof(path), PCI_DEVICES "/%s/device", d);
		if (uio_sysfs_num(path) != 0x11e8)
			continue;
		if (n-- == 0) {
			snprintf(addr, len, "%s", d);
			ret = 0;
			break;
		}
	}
	for (i = 0; i < count; i++)
		free(names[i]);
	free(names);
	return ret;
}

/* Wait up to timeout_ms for a UIO device below addr; its minor or -errno. */
static inline int edu_wait_minor(const char *addr, int timeout_ms)
{
	double end = uio_now() + timeout_ms / 1000.0;
	int minor;

	for (;;) {
		minor = uio_pci_minor(addr);
		if (minor >= 0 || uio_now() > end)
			return minor;
		usleep(2000);
	}
}

#endif /* UIO_STRESS_H */
