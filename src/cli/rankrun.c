/* rankrun.c — traces to summaries, one or many threads (see rankrun.h). */
#include "cli/rankrun.h"

#include "cli/cli.h"
#include "trace/analysis/flames.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* err = "'name': " + err */
static void prefix(struct sbuf *err, const char *name)
{
	struct sbuf m = SBUF_INIT;
	sbuf_addf(&m, "'%s': %s", name, err->buf);
	sbuf_setf(err, "%s", m.buf);
	sbuf_release(&m);
}

unsigned rankrun_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 4096 ? 4096 : (unsigned)n;
}

int rankrun_one(const char *file, const struct rankrun_opts *ro, struct sbuf *json, struct sbuf *warn,
		struct sbuf *err)
{
	const struct tropts *o = ro->o;
	const char *name = cli_in_name(file);
	struct trace t;
	struct actx c;
	struct report r;
	struct flames f;
	struct trace_opts to = { 0 };
	to.step_marker = o->marker;
	to.threads = ro->read_threads;
	if (ro->progress) {
		to.progress = cli_progress_reading;
		to.progress_ctx = (void *)name;
	}
	trace_init(&t, NULL);
	int rc = trace_load(&t, file, &to, err);
	if (ro->progress)
		cli_progress_done();
	if (rc)
		goto out_t;
	cli_trace_warnings(&t, name, warn);
	if (ro->rank >= 0)
		t.meta.rank = ro->rank;
	if (ro->world >= 0)
		t.meta.world_size = ro->world;
	if ((rc = actx_init(&c, &t, o->device, err))) {
		prefix(err, name);
		goto out_t;
	}
	if ((rc = report_build(&r, &c, &o->ro, err))) {
		prefix(err, name);
		goto out_c;
	}
	if (r.idle_err)
		sbuf_addf(warn, "'%s': no idle stacks: %s\n", name, r.idle_err);
	bool have_f = false;
	if (ro->flames) {
		if ((rc = flames_build(&f, &c, &o->ro.steps, o->marker, err))) {
			prefix(err, name);
			goto out_r;
		}
		have_f = true;
	}
	struct summary_opts so = { &o->ro, o->marker, o->device, ro->run, "gpuflame " GF_VERSION };
	struct summary_src src = { &r, &c, have_f ? &f : NULL, name, &so };
	summary_write(&src, json);
	if (have_f)
		flames_release(&f);
out_r:
	report_release(&r);
out_c:
	actx_release(&c);
out_t:
	trace_release(&t);
	return rc;
}

/* The threads' shared state: the next trace to take, and each trace's
 * outcome. */
struct pool_st {
	char **files;
	size_t n, next, done;
	const struct rankrun_opts *ro;
	struct ranks_mem *m;
	int *rc;
	struct sbuf *err, *warn;
	bool stop;
	pthread_mutex_t mu;
};

static void *worker(void *arg)
{
	struct pool_st *p = arg;
	struct sbuf json = SBUF_INIT;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		size_t i = p->stop || p->next >= p->n ? SIZE_MAX : p->next++;
		pthread_mutex_unlock(&p->mu);
		if (i == SIZE_MAX)
			break;
		sbuf_reset(&json);
		p->rc[i] = rankrun_one(p->files[i], p->ro, &json, &p->warn[i], &p->err[i]);
		if (!p->rc[i])
			ranks_mem_put(p->m, i, cli_in_name(p->files[i]), &json);
		pthread_mutex_lock(&p->mu);
		if (p->rc[i])
			p->stop = true;
		p->done++;
		if (p->ro->progress)
			cli_progress("summarising: %zu of %zu traces", p->done, p->n);
		pthread_mutex_unlock(&p->mu);
	}
	sbuf_release(&json);
	return NULL;
}

void rankrun_all(char **files, size_t n, unsigned jobs, const struct rankrun_opts *ro, struct ranks_mem *m)
{
	struct pool_st p;
	memset(&p, 0, sizeof p);
	p.files = files;
	p.n = n;
	p.ro = ro;
	p.m = m;
	p.rc = gf_xcalloc(n ? n : 1, sizeof *p.rc);
	p.err = gf_xcalloc(n ? n : 1, sizeof *p.err);
	p.warn = gf_xcalloc(n ? n : 1, sizeof *p.warn);
	pthread_mutex_init(&p.mu, NULL);
	if (jobs > n)
		jobs = (unsigned)n;
	pthread_t *th = gf_xcalloc(jobs ? jobs : 1, sizeof *th);
	unsigned started = 0;
	for (unsigned k = 1; k < jobs; k++)
		if (!pthread_create(&th[started], NULL, worker, &p))
			started++;
	worker(&p); /* this thread is one of them */
	for (unsigned k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	if (ro->progress)
		cli_progress_done();
	pthread_mutex_destroy(&p.mu);
	free(th);
	for (size_t i = 0; i < n; i++) {
		cli_warn_lines(&p.warn[i]);
		if (p.rc[i])
			cli_die(gf_err_exit(p.rc[i]), "%s", p.err[i].buf);
		if (i >= p.next) /* not taken: an earlier one failed (never reached) */
			break;
	}
	for (size_t i = 0; i < n; i++) {
		sbuf_release(&p.err[i]);
		sbuf_release(&p.warn[i]);
	}
	free(p.err);
	free(p.warn);
	free(p.rc);
}

static bool summary_name(const char *s)
{
	static const char *const suf[] = { ".summary.json", ".summary.json.gz", ".summary.json.zst" };
	size_t n = strlen(s);
	for (size_t i = 0; i < GF_ARRAY_LEN(suf); i++) {
		size_t k = strlen(suf[i]);
		if (n > k && !strcmp(s + n - k, suf[i]))
			return true;
	}
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The summaries in folder dir, in name order, appended to f. */
static void folder(const char *dir, struct ranks_files *f, size_t *cap)
{
	DIR *d = opendir(dir);
	if (!d)
		cli_die(GF_EXIT_INPUT, "cannot read the folder '%s': %s", dir, strerror(errno));
	size_t start = f->n;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!summary_name(e->d_name))
			continue;
		if (f->n == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			f->paths = gf_xreallocarray(f->paths, *cap, sizeof *f->paths);
		}
		size_t dl = strlen(dir);
		char *p = gf_xmalloc(dl + strlen(e->d_name) + 2);
		sprintf(p, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", e->d_name);
		f->paths[f->n++] = p;
	}
	closedir(d);
	if (f->n == start)
		cli_die(GF_EXIT_INPUT, "'%s': no *.summary.json, *.summary.json.gz or *.summary.json.zst file in the "
				       "folder",
			dir);
	qsort(f->paths + start, f->n - start, sizeof *f->paths, cmp_str);
}

void rankrun_inputs(int argc, char **argv, int first, struct ranks_files *f, char **what)
{
	memset(f, 0, sizeof *f);
	*what = NULL;
	size_t n, cap = 0;
	char **in = cli_inputs(argc, argv, first, &n);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (strcmp(in[i], "-") && !stat(in[i], &st) && S_ISDIR(st.st_mode)) {
			folder(in[i], f, &cap);
			if (n == 1) {
				*what = gf_xmalloc(strlen(in[i]) + 3);
				sprintf(*what, "'%s'", in[i]);
			}
			continue;
		}
		if (f->n == cap) {
			cap = cap ? cap * 2 : 64;
			f->paths = gf_xreallocarray(f->paths, cap, sizeof *f->paths);
		}
		f->paths[f->n++] = gf_xstrdup(in[i]);
	}
}

void rankrun_inputs_free(struct ranks_files *f, char *what)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->paths[i]);
	free(f->paths);
	sbuf_release(&f->in);
	free(what);
	memset(f, 0, sizeof *f);
}
