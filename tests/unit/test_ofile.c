/* test_ofile.c — unit tests of src/base/ofile: the temporary file is private
 * and unguessable, symlinks are written through, modes and owners are kept,
 * special files and descriptor names are written in place, and temporary
 * files never outlive the process (exit, abort, the registry). */
#include "t.h"

#include "base/gf.h"
#include "base/ofile.h"
#include "base/sbuf.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

static void mkdir_t(void)
{
	snprintf(dir, sizeof dir, "/tmp/gf_tofile_XXXXXX");
	if (!mkdtemp(dir))
		abort();
}

static const char *P(const char *name)
{
	static char bufs[4][512];
	static int k;
	char *b = bufs[k++ & 3];
	snprintf(b, 512, "%s/%s", dir, name);
	return b;
}

/* Entries in dir, "." and ".." excluded. */
static int n_entries(void)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static void rm_t(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlink(P(e->d_name));
	if (d)
		closedir(d);
	rmdir(dir);
}

static void put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	fchmod(fd, mode);
	close(fd);
}

static char *slurp(const char *path)
{
	static char b[4096];
	int fd = open(path, O_RDONLY);
	ssize_t k = fd < 0 ? -1 : read(fd, b, sizeof b - 1);
	b[k < 0 ? 0 : k] = 0;
	if (fd >= 0)
		close(fd);
	return b;
}

/* The one entry of dir whose name starts with prefix (the temporary file). */
static const char *find_entry(const char *prefix, const char *not)
{
	static char name[512];
	DIR *d = opendir(dir);
	struct dirent *e;
	name[0] = 0;
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)) && strcmp(e->d_name, not))
			snprintf(name, sizeof name, "%s", e->d_name);
	if (d)
		closedir(d);
	return name;
}

/* A symlink planted at the old guessable name (OUT.tmp.PID) and at every
 * other name we could guess is not followed: its target is untouched. */
T_TEST(test_ofile__planted_temp_symlink_not_followed)
{
	mkdir_t();
	struct sbuf tmpname = SBUF_INIT, err = SBUF_INIT;
	put(P("victim"), "precious", 0644);
	sbuf_addf(&tmpname, "%s.tmp.%ld", P("out"), (long)getpid());
	T_TRUE(symlink(P("victim"), tmpname.buf) == 0);
	struct ofile o;
	T_EQ_I64(ofile_open(&o, P("out"), &err), GF_OK);
	fputs("new", o.fp);
	T_EQ_I64(ofile_commit(&o, &err), GF_OK);
	T_EQ_STR(slurp(P("victim")), "precious");
	T_EQ_STR(slurp(P("out")), "new");
	struct stat sb;
	T_TRUE(!lstat(tmpname.buf, &sb) && S_ISLNK(sb.st_mode));
	T_EQ_I64(n_entries(), 3);
	rm_t();
	sbuf_release(&tmpname);
	sbuf_release(&err);
}

/* While written, the temporary file is a new regular file of mode 0600 in
 * the target's directory, under an unguessable name. */
T_TEST(test_ofile__temp_private)
{
	mkdir_t();
	struct sbuf err = SBUF_INIT;
	struct ofile o;
	T_EQ_I64(ofile_open(&o, P("out"), &err), GF_OK);
	T_TRUE(o.tmp != NULL);
	char pidname[64];
	snprintf(pidname, sizeof pidname, "out.tmp.%ld", (long)getpid());
	const char *t = find_entry("out.tmp.", "");
	T_TRUE(*t && strcmp(t, pidname));
	struct stat sb;
	T_TRUE(!lstat(P(t), &sb) && S_ISREG(sb.st_mode) && (sb.st_mode & 0777) == 0600);
	struct stat fsb;
	T_TRUE(!fstat(fileno(o.fp), &fsb) && fsb.st_ino == sb.st_ino);
	ofile_abort(&o);
	T_EQ_I64(n_entries(), 0);
	rm_t();
	sbuf_release(&err);
}

/* -o through a symlink to a regular file: the link stays a link, the file
 * it names gets the new content; a relative link resolves from its own
 * directory; the temporary file is made beside the target. */
T_TEST(test_ofile__write_through_symlink)
{
	mkdir_t();
	struct sbuf err = SBUF_INIT;
	T_TRUE(mkdir(P("sub"), 0755) == 0);
	put(P("sub/real"), "old", 0644);
	T_TRUE(symlink("sub/real", P("link")) == 0);
	T_TRUE(symlink("link", P("link2")) == 0);
	struct ofile o;
	T_EQ_I64(ofile_open(&o, P("link2"), &err), GF_OK);
	T_TRUE(o.tmp && !strncmp(o.tmp, P("sub/real.tmp."), strlen(P("sub/real.tmp."))));
	fputs("new", o.fp);
	T_EQ_I64(ofile_commit(&o, &err), GF_OK);
	struct stat sb;
	T_TRUE(!lstat(P("link"), &sb) && S_ISLNK(sb.st_mode));
	T_TRUE(!lstat(P("link2"), &sb) && S_ISLNK(sb.st_mode));
	T_EQ_STR(slurp(P("sub/real")), "new");
	unlink(P("sub/real"));
	T_TRUE(rmdir(P("sub")) == 0); /* no temporary file left in sub/ */
	rm_t();
	sbuf_release(&err);
}

/* A dangling symlink: the file it names is created; the link stays. */
T_TEST(test_ofile__dangling_symlink_creates_target)
{
	mkdir_t();
	struct sbuf err = SBUF_INIT;
	T_TRUE(symlink("made", P("dangling")) == 0);
	struct ofile o;
	T_EQ_I64(ofile_open(&o, P("dangling"), &err), GF_OK);
	fputs("x", o.fp);
	T_EQ_I64(ofile_commit(&o, &err), GF_OK);
	struct stat sb;
	T_TRUE(!lstat(P("dangling"), &sb) && S_ISLNK(sb.st_mode));
	T_EQ_STR(slurp(P("made")), "x");
	T_EQ_I64(n_entries(), 2);
	rm_t();
	sbuf_release(&err);
}

/* An existing file keeps its mode (0600 stays 0600, 0755 stays 0755, less
 * setuid/setgid); a new one gets 0666 & ~umask. */
T_TEST(test_ofile__mode_kept)
{
	mkdir_t();
	struct sbuf err = SBUF_INIT;
	put(P("secret"), "s", 0600);
	put(P("script"), "s", 0755);
	mode_t old = umask(027);
	struct ofile o;
	struct stat sb;
	T_EQ_I64(ofile_open(&o, P("secret"), &err), GF_OK);
	fputs("new", o.fp);
	T_EQ_I64(ofile_commit(&o, &err), GF_OK);
	T_TRUE(!stat(P("secret"), &sb));
	T_EQ_I64(sb.st_mode & 07777, 0600);
	T_EQ_I64(ofile_open(&o, P("script"), &err), GF_OK);
	T_EQ_I64(ofile_commit(&o, &err), GF_OK);
	T_TRUE(!stat(P("script"), &sb));
	T_EQ_I64(sb.st_mode & 07777, 0755);
	T_TRUE(chmod(P("script"), 06755) == 0); /* setuid/setgid are not kept */
	T_EQ_I64(ofile_open(&o, P("script"), &err), GF_OK);
	T_EQ_I64(ofile_commit(&o, &err), GF_OK);
	T_TRUE(!stat(P("script"), &sb));
	T_EQ_I64(sb.st_mode & 07777, 0755);
	T_EQ_I64(ofile_open(&o, P("fresh"), &err), GF_OK);
	T_EQ_I64(ofile_commit(&o, &err), GF_OK);
	T_TRUE(!stat(P("fresh"), &sb));
	umask(old);
	/* the umask is read once per process: 027 or the one before */
	T_TRUE((sb.st_mode & 07777) == (0666 & ~027u) || (sb.st_mode & 07777) == (0666 & ~old));
	T_EQ_I64(n_entries(), 3);
	rm_t();
	sbuf_release(&err);
}

/* As root: the owner and group of an existing file are kept. */
T_TEST(test_ofile__owner_kept)
{
	mkdir_t();
	struct sbuf err = SBUF_INIT;
	put(P("theirs"), "t", 0640);
	T_TRUE(chown(P("theirs"), 4242, 4343) == 0);
	struct ofile o;
	T_EQ_I64(ofile_open(&o, P("theirs"), &err), GF_OK);
	fputs("new", o.fp);
	T_EQ_I64(ofile_commit(&o, &err), GF_OK);
	struct stat sb;
	T_TRUE(!stat(P("theirs"), &sb));
	T_EQ_I64(sb.st_uid, 4242);
	T_EQ_I64(sb.st_gid, 4343);
	T_EQ_I64(sb.st_mode & 07777, 0640);
	rm_t();
	sbuf_release(&err);
}

/* A link in a world-writable sticky directory owned by someone else (here
 * uid 4242, as root) is not followed: the /tmp symlink attack. */
T_TEST(test_ofile__sticky_dir_foreign_link_refused)
{
	mkdir_t();
	struct sbuf err = SBUF_INIT;
	T_TRUE(chmod(dir, 01777) == 0);
	put(P("victim"), "precious", 0644);
	T_TRUE(symlink(P("victim"), P("out")) == 0);
	T_TRUE(lchown(P("out"), 4242, 4242) == 0);
	struct ofile o;
	T_EQ_I64(ofile_open(&o, P("out"), &err), GF_EOUTPUT);
	T_TRUE(strstr(err.buf, "refusing to follow") != NULL);
	T_EQ_STR(slurp(P("victim")), "precious");
	T_EQ_I64(n_entries(), 2);
	/* our own link there is followed */
	T_TRUE(lchown(P("out"), 0, 0) == 0);
	T_EQ_I64(ofile_open(&o, P("out"), &err), GF_OK);
	fputs("mine", o.fp);
	T_EQ_I64(ofile_commit(&o, &err), GF_OK);
	T_EQ_STR(slurp(P("victim")), "mine");
	rm_t();
	sbuf_release(&err);
}

/* Not a regular file: a FIFO (read by a child) is written in place and
 * stays a FIFO; a link to /dev/null stays a link. */
T_TEST(test_ofile__special_in_place)
{
	mkdir_t();
	struct sbuf err = SBUF_INIT;
	T_TRUE(mkfifo(P("fifo"), 0600) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(P("fifo"), O_RDONLY);
		char b[16];
		ssize_t k = read(fd, b, sizeof b);
		_exit(k == 3 && !memcmp(b, "abc", 3) ? 0 : 1);
	}
	struct ofile o;
	T_EQ_I64(ofile_open(&o, P("fifo"), &err), GF_OK);
	T_TRUE(o.tmp == NULL);
	fputs("abc", o.fp);
	T_EQ_I64(ofile_commit(&o, &err), GF_OK);
	int st = -1;
	waitpid(pid, &st, 0);
	T_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	struct stat sb;
	T_TRUE(!lstat(P("fifo"), &sb) && S_ISFIFO(sb.st_mode));
	T_TRUE(symlink("/dev/null", P("null")) == 0);
	T_EQ_I64(ofile_open(&o, P("null"), &err), GF_OK);
	fputs("abc", o.fp);
	T_EQ_I64(ofile_commit(&o, &err), GF_OK);
	T_TRUE(!lstat(P("null"), &sb) && S_ISLNK(sb.st_mode));
	T_TRUE(!stat("/dev/null", &sb) && S_ISCHR(sb.st_mode));
	T_EQ_I64(n_entries(), 2);
	rm_t();
	sbuf_release(&err);
}

/* A descriptor's name (/proc/self/fd/N, what /dev/stdout names) is written
 * in place, even when the descriptor is a regular file: the file is
 * truncated and written, nothing is renamed over anything. */
T_TEST(test_ofile__fd_name_in_place)
{
	mkdir_t();
	struct sbuf err = SBUF_INIT, fdname = SBUF_INIT;
	put(P("file"), "old old old", 0644);
	T_TRUE(symlink(P("file"), P("other")) == 0);
	int fd = open(P("file"), O_WRONLY);
	struct stat before, after;
	T_TRUE(!fstat(fd, &before));
	sbuf_addf(&fdname, "/proc/self/fd/%d", fd);
	struct ofile o;
	int rc = ofile_open(&o, fdname.buf, &err);
	T_EQ_I64(rc, GF_OK);
	if (rc == GF_OK) {
		T_TRUE(o.tmp == NULL);
		fputs("new", o.fp);
		T_EQ_I64(ofile_commit(&o, &err), GF_OK);
	}
	close(fd);
	T_TRUE(!stat(P("file"), &after));
	T_EQ_I64(after.st_ino, before.st_ino);
	T_EQ_STR(slurp(P("file")), "new");
	T_EQ_I64(n_entries(), 2);
	rm_t();
	sbuf_release(&err);
	sbuf_release(&fdname);
}

/* The temporary file never outlives the process: exit() (every die and
 * out-of-memory path) removes it, and so does ofile_remove_temps (what the
 * signal handlers call); the existing output is untouched. */
T_TEST(test_ofile__temp_removed_on_exit_and_signal)
{
	mkdir_t();
	put(P("out"), "before", 0644);
	for (int how = 0; how < 2; how++) {
		pid_t pid = fork();
		if (pid == 0) {
			struct sbuf err = SBUF_INIT;
			struct ofile o;
			if (ofile_open(&o, P("out"), &err))
				_exit(9);
			fputs("partial", o.fp);
			fflush(o.fp);
			if (how == 0)
				exit(4);
			ofile_remove_temps();
			signal(SIGTERM, SIG_DFL);
			raise(SIGTERM);
			_exit(8);
		}
		int st = -1;
		waitpid(pid, &st, 0);
		if (how == 0)
			T_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 4);
		else
			T_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
		T_EQ_I64(n_entries(), 1);
		T_EQ_STR(slurp(P("out")), "before");
	}
	rm_t();
}

/* A failed commit (here: the directory removed under us) reports the file
 * and leaves nothing; a directory as target is an error, not a rename. */
T_TEST(test_ofile__errors)
{
	mkdir_t();
	struct sbuf err = SBUF_INIT;
	struct ofile o;
	T_TRUE(mkdir(P("d"), 0755) == 0);
	T_EQ_I64(ofile_open(&o, P("d"), &err), GF_EOUTPUT);
	T_TRUE(strstr(err.buf, "/d'") != NULL);
	T_EQ_I64(ofile_open(&o, P("nodir/x"), &err), GF_EOUTPUT);
	T_TRUE(strstr(err.buf, "nodir/x'") != NULL);
	T_EQ_I64(ofile_open(&o, P("d/x"), &err), GF_OK);
	fputs("abc", o.fp);
	unlink(o.tmp);
	T_TRUE(rmdir(P("d")) == 0);
	T_EQ_I64(ofile_commit(&o, &err), GF_EOUTPUT);
	T_TRUE(strstr(err.buf, "cannot write '") != NULL);
	T_EQ_I64(n_entries(), 0);
	rm_t();
	sbuf_release(&err);
}

int main(void)
{
	T_RUN(test_ofile__planted_temp_symlink_not_followed);
	T_RUN(test_ofile__temp_private);
	T_RUN(test_ofile__write_through_symlink);
	T_RUN(test_ofile__dangling_symlink_creates_target);
	T_RUN(test_ofile__mode_kept);
	if (geteuid() == 0) {
		T_RUN(test_ofile__owner_kept);
		T_RUN(test_ofile__sticky_dir_foreign_link_refused);
	} else {
		T_SKIP(test_ofile__owner_kept, "not root");
		T_SKIP(test_ofile__sticky_dir_foreign_link_refused, "not root");
	}
	T_RUN(test_ofile__special_in_place);
	T_RUN(test_ofile__fd_name_in_place);
	T_RUN(test_ofile__temp_removed_on_exit_and_signal);
	T_RUN(test_ofile__errors);
	return t_done();
}
