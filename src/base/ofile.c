/* ofile.c — write to a private temporary file, rename on success (see ofile.h). */
#include "base/ofile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the registry of temporary files in flight ----
 * A signal handler may read it at any moment: a slot holds either NULL or a
 * complete, NUL-terminated name that is freed only after the slot is
 * cleared. */
#define OFILE_SLOTS 16
static char *volatile temps[OFILE_SLOTS];

void ofile_remove_temps(void)
{
	for (int i = 0; i < OFILE_SLOTS; i++) {
		char *p = temps[i];
		if (p)
			unlink(p);
	}
}

static void remove_at_exit(void)
{
	ofile_remove_temps();
}

static int reg_add(char *name)
{
	static bool hooked;
	if (!hooked) {
		hooked = true;
		atexit(remove_at_exit);
	}
	for (int i = 0; i < OFILE_SLOTS; i++)
		if (!temps[i]) {
			temps[i] = name;
			return i;
		}
	return -1;
}

static void reg_del(int slot)
{
	if (slot >= 0 && slot < OFILE_SLOTS)
		temps[slot] = NULL;
}

/* The signals whose handlers remove temporary files are held while a file
 * is created and registered, or renamed and forgotten: no window in which a
 * temporary file exists unregistered. */
static void hold_signals(sigset_t *old)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGHUP);
	sigaddset(&s, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &s, old);
}

static void release_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* ---- helpers ---- */

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* The directory part of path ("." when there is none) into d. */
static void dir_of(const char *path, struct sbuf *d)
{
	sbuf_reset(d);
	const char *slash = strrchr(path, '/');
	if (!slash)
		sbuf_addch(d, '.');
	else if (slash == path)
		sbuf_addch(d, '/');
	else
		sbuf_add(d, path, (size_t)(slash - path));
}

static unsigned cur_umask(void)
{
	static int cached = -1;
	if (cached < 0) {
		mode_t m = umask(0);
		umask(m);
		cached = (int)(m & 0777);
	}
	return (unsigned)cached;
}

/* The kernel's protected_symlinks rule, applied by us because a rename does
 * not go through it: a link in a sticky world-writable directory is followed
 * only when we or the directory's owner own it. */
static bool unsafe_link(const char *link, const struct stat *lsb)
{
	struct sbuf d = SBUF_INIT;
	dir_of(link, &d);
	struct stat dsb;
	bool bad = !stat(d.buf, &dsb) && (dsb.st_mode & S_ISVTX) && (dsb.st_mode & S_IWOTH) &&
		   lsb->st_uid != geteuid() && lsb->st_uid != dsb.st_uid;
	sbuf_release(&d);
	return bad;
}

/* Creates a new file "<target>.tmp.XXXXXXXX" beside target, mode 0600,
 * never following or reusing an existing name. @return the fd or -1. */
static int make_temp(const char *target, struct sbuf *name)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static unsigned long counter;
	const char *slash = strrchr(target, '/');
	size_t dlen = slash ? (size_t)(slash - target) + 1 : 0;
	size_t blen = strlen(target + dlen);
	if (blen > 200) /* keep the name under NAME_MAX */
		blen = 200;
	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned char r[8];
		if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			unsigned long long x = (unsigned long long)ts.tv_nsec ^
					       ((unsigned long long)getpid() << 20) ^ (++counter * 0x9E3779B97F4A7C15ull);
			for (size_t i = 0; i < sizeof r; i++, x >>= 7)
				r[i] = (unsigned char)(x ^ (x >> 29));
		}
		sbuf_reset(name);
		sbuf_add(name, target, dlen + blen);
		sbuf_addstr(name, ".tmp.");
		for (size_t i = 0; i < sizeof r; i++)
			sbuf_addch(name, abc[r[i] % (sizeof abc - 1)]);
		int fd = open(name->buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

/* Opens path in place (no rename): a device, FIFO, socket or an open
 * descriptor's name. */
static int open_in_place(struct ofile *o, const char *path, const char *openpath, bool fdname,
			 struct sbuf *err)
{
	int fd = open(openpath, O_WRONLY | O_NOCTTY | O_CLOEXEC | (fdname ? 0 : O_NOFOLLOW));
	if (fd < 0) {
		sbuf_setf(err, "cannot open '%s': %s", path, strerror(errno));
		return GF_EOUTPUT;
	}
	struct stat sb;
	if (fstat(fd, &sb)) {
		sbuf_setf(err, "cannot open '%s': %s", path, strerror(errno));
		close(fd);
		return GF_EOUTPUT;
	}
	if (S_ISREG(sb.st_mode)) {
		if (!fdname) { /* it was replaced by a regular file meanwhile */
			sbuf_setf(err, "cannot open '%s': it changed while being opened", path);
			close(fd);
			return GF_EOUTPUT;
		}
		/* /dev/stdout redirected to a file: truncate, as '>' would */
		if (ftruncate(fd, 0) && errno != EINVAL) {
			sbuf_setf(err, "cannot open '%s': %s", path, strerror(errno));
			close(fd);
			return GF_EOUTPUT;
		}
	}
	FILE *fp = fdopen(fd, "wb");
	if (!fp) {
		sbuf_setf(err, "cannot open '%s': %s", path, strerror(errno));
		close(fd);
		return GF_EOUTPUT;
	}
	o->fp = fp;
	o->path = gf_xstrdup(path);
	return GF_OK;
}

int ofile_open(struct ofile *o, const char *path, struct sbuf *err)
{
	memset(o, 0, sizeof *o);
	o->slot = -1;
	o->uid = o->gid = -1;
	if (!path || !strcmp(path, "-")) {
		o->fp = stdout;
		return GF_OK;
	}
	if (!*path) {
		sbuf_setf(err, "cannot open '': %s", strerror(ENOENT));
		return GF_EOUTPUT;
	}
	/* follow the chain of symbolic links of the last component ourselves:
	 * the temporary file goes beside the file finally named */
	struct sbuf cur = SBUF_INIT, link = SBUF_INIT, d = SBUF_INIT;
	sbuf_addstr(&cur, path);
	struct stat sb;
	bool exists = false, fdname = false;
	int rc = GF_OK;
	for (int hop = 0;; hop++) {
		if (has_prefix(cur.buf, "/proc/") || has_prefix(cur.buf, "/dev/fd/")) {
			fdname = true;
			break;
		}
		if (hop == 40) {
			sbuf_setf(err, "cannot open '%s': %s", path, strerror(ELOOP));
			rc = GF_EOUTPUT;
			goto out;
		}
		if (lstat(cur.buf, &sb)) {
			if (errno != ENOENT) {
				sbuf_setf(err, "cannot open '%s': %s", path, strerror(errno));
				rc = GF_EOUTPUT;
				goto out;
			}
			break; /* a new file, or a dangling link's target */
		}
		if (!S_ISLNK(sb.st_mode)) {
			exists = true;
			break;
		}
		if (unsafe_link(cur.buf, &sb)) {
			sbuf_setf(err, "cannot open '%s': refusing to follow the symbolic link '%s' owned by "
				  "another user in a world-writable sticky directory", path, cur.buf);
			rc = GF_EOUTPUT;
			goto out;
		}
		sbuf_reset(&link);
		sbuf_grow(&link, (size_t)(sb.st_size > 0 ? sb.st_size : 255) + 1);
		for (;;) {
			ssize_t k = readlink(cur.buf, link.buf, link.alloc);
			if (k < 0) {
				sbuf_setf(err, "cannot open '%s': %s", path, strerror(errno));
				rc = GF_EOUTPUT;
				goto out;
			}
			if ((size_t)k < link.alloc) {
				sbuf_setlen(&link, (size_t)k);
				break;
			}
			sbuf_grow(&link, link.alloc);
		}
		if (link.buf[0] != '/') {
			dir_of(cur.buf, &d);
			sbuf_addch(&d, '/');
			sbuf_add(&d, link.buf, link.len);
			sbuf_reset(&link);
			sbuf_add(&link, d.buf, d.len);
		}
		sbuf_reset(&cur);
		sbuf_add(&cur, link.buf, link.len);
	}
	if (fdname || (exists && !S_ISREG(sb.st_mode))) {
		/* renaming over a device or an open descriptor's name would
		 * replace the node itself: write in place */
		rc = open_in_place(o, path, cur.buf, fdname, err);
		goto out;
	}
	if (exists) {
		if (access(cur.buf, W_OK)) {
			sbuf_setf(err, "cannot open '%s': %s", path, strerror(errno));
			rc = GF_EOUTPUT;
			goto out;
		}
		o->mode = (unsigned)(sb.st_mode & 01777); /* never setuid/setgid */
		o->uid = (long)sb.st_uid;
		o->gid = (long)sb.st_gid;
	} else {
		o->mode = 0666 & ~cur_umask();
	}
	struct sbuf t = SBUF_INIT;
	sigset_t held;
	hold_signals(&held);
	int fd = make_temp(cur.buf, &t);
	if (fd < 0) {
		int e = errno;
		release_signals(&held);
		dir_of(cur.buf, &d);
		sbuf_setf(err, "cannot create '%s' (a temporary file in '%s'): %s", path, d.buf, strerror(e));
		sbuf_release(&t);
		rc = GF_EOUTPUT;
		goto out;
	}
	o->tmp = sbuf_detach(&t, NULL);
	o->slot = reg_add(o->tmp);
	release_signals(&held);
	FILE *fp = o->slot >= 0 ? fdopen(fd, "wb") : NULL;
	if (!fp) {
		int e = o->slot < 0 ? EMFILE : errno;
		unlink(o->tmp);
		reg_del(o->slot);
		close(fd);
		free(o->tmp);
		o->tmp = NULL;
		o->slot = -1;
		sbuf_setf(err, "cannot create '%s': %s", path, strerror(e));
		rc = GF_EOUTPUT;
		goto out;
	}
	o->fp = fp;
	o->path = gf_xstrdup(path);
	o->target = sbuf_detach(&cur, NULL);
out:
	sbuf_release(&cur);
	sbuf_release(&link);
	sbuf_release(&d);
	return rc;
}

void ofile_write_error(const struct ofile *o, int e, struct sbuf *err)
{
	if (!o->path)
		sbuf_setf(err, "write failure on standard output: %s", strerror(e ? e : EIO));
	else
		sbuf_setf(err, "cannot write '%s': %s", o->path, strerror(e ? e : EIO));
}

/* Forgets o's names (the temporary file must be gone or renamed). */
static void drop(struct ofile *o)
{
	reg_del(o->slot);
	free(o->tmp);
	free(o->target);
	free(o->path);
	o->tmp = o->target = o->path = NULL;
	o->slot = -1;
}

int ofile_commit(struct ofile *o, struct sbuf *err)
{
	if (!o->fp)
		return GF_OK;
	if (!o->path) {
		int bad = fflush(stdout) != 0 || ferror(stdout);
		int e = errno;
		o->fp = NULL;
		if (bad) {
			ofile_write_error(o, e, err);
			return GF_EOUTPUT;
		}
		return GF_OK;
	}
	int bad = fflush(o->fp) != 0 || ferror(o->fp);
	int e = errno;
	if (!bad && o->tmp) {
		/* the final mode (and owner) before the name appears */
		int fd = fileno(o->fp);
		if (o->uid >= 0 && ((uid_t)o->uid != geteuid() || (gid_t)o->gid != getegid()) &&
		    fchown(fd, (uid_t)o->uid, (gid_t)o->gid) != 0) {
			if (fchown(fd, (uid_t)-1, (gid_t)o->gid) != 0) {
				/* not ours to give away: the file becomes ours */
			}
		}
		if (fchmod(fd, (mode_t)o->mode) != 0) {
			bad = 1;
			e = errno;
		}
	}
	if (fclose(o->fp) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	o->fp = NULL;
	sigset_t held;
	hold_signals(&held);
	if (!bad && o->tmp && rename(o->tmp, o->target) != 0) {
		bad = 1;
		e = errno;
	}
	if (bad && o->tmp)
		unlink(o->tmp);
	reg_del(o->slot);
	release_signals(&held);
	if (bad)
		ofile_write_error(o, e, err);
	drop(o);
	return bad ? GF_EOUTPUT : GF_OK;
}

void ofile_abort(struct ofile *o)
{
	if (o->path) {
		if (o->fp)
			fclose(o->fp);
		if (o->tmp)
			unlink(o->tmp);
		drop(o);
	}
	o->fp = NULL;
}
