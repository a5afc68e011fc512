/*
 * mapguard.c — SIGBUS on a shrunk mapped file as a recoverable error (see
 * mapguard.h).
 *
 * The registry is a small array of (start, length) slots read by the
 * handler with atomic loads; adding and removing take a mutex. The handler
 * is installed once, on the first mapguard_add, and keeps the disposition
 * it replaced for faults that are not ours.
 */
#include "base/mapguard.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#define SLOTS 16

static _Atomic uintptr_t g_start[SLOTS];
static _Atomic size_t g_len[SLOTS];
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static struct sigaction g_prev;
static _Thread_local sigjmp_buf *g_jb;

static bool ours(uintptr_t a)
{
	for (unsigned i = 0; i < SLOTS; i++) {
		uintptr_t s = atomic_load(&g_start[i]);
		if (s && a >= s && a - s < atomic_load(&g_len[i]))
			return true;
	}
	return false;
}

static void on_bus(int sig, siginfo_t *si, void *uc)
{
	sigjmp_buf *jb = g_jb;
	if (jb && si && ours((uintptr_t)si->si_addr)) {
		g_jb = NULL;
		siglongjmp(*jb, 1);
	}
	/* not ours: the previous disposition decides (the fault repeats) */
	if (g_prev.sa_flags & SA_SIGINFO) {
		if (g_prev.sa_sigaction) {
			g_prev.sa_sigaction(sig, si, uc);
			return;
		}
	} else if (g_prev.sa_handler != SIG_DFL && g_prev.sa_handler != SIG_IGN) {
		g_prev.sa_handler(sig);
		return;
	}
	signal(SIGBUS, SIG_DFL);
}

static void install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_bus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &g_prev);
}

void mapguard_add(const void *map, size_t len)
{
	pthread_once(&g_once, install);
	pthread_mutex_lock(&g_mu);
	for (unsigned i = 0; i < SLOTS; i++) {
		if (!atomic_load(&g_start[i])) {
			atomic_store(&g_len[i], len);
			atomic_store(&g_start[i], (uintptr_t)map);
			break;
		}
	}
	pthread_mutex_unlock(&g_mu);
}

void mapguard_remove(const void *map)
{
	pthread_mutex_lock(&g_mu);
	for (unsigned i = 0; i < SLOTS; i++) {
		if (atomic_load(&g_start[i]) == (uintptr_t)map) {
			atomic_store(&g_start[i], 0);
			atomic_store(&g_len[i], 0);
			break;
		}
	}
	pthread_mutex_unlock(&g_mu);
}

void mapguard_arm(sigjmp_buf *jb)
{
	g_jb = jb;
}

void mapguard_disarm(void)
{
	g_jb = NULL;
}
