/*
 * replay.c — the seed-replay driver of the fast tier (`make check`): a main()
 * that feeds every file it is given (or every file of a folder it is given,
 * in name order) to a libFuzzer target's LLVMFuzzerTestOneInput, once, as
 * libFuzzer's -runs=0 does. Linked with each tests/fuzz/fuzz_<name>.c by gcc
 * against the ASan+UBSan library (build/asan/replay/fuzz_<name>), so the
 * seeds under tests/fuzz/corpus/<name>/ are replayed without clang or
 * libFuzzer. A crash, a sanitizer report or an assertion (GF_ASSERT) stops
 * it with a non-zero status; else it prints "replayed N inputs".
 *
 *   build/asan/replay/fuzz_report tests/fuzz/corpus/report
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int one(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open '%s'\n", path);
		return 1;
	}
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	int bad = ferror(f) || !buf;
	fclose(f);
	if (bad) {
		fprintf(stderr, "replay: cannot read '%s'\n", path);
		free(buf);
		return 1;
	}
	/* a copy of exactly the input's size, as libFuzzer gives it: ASan sees reads past the end */
	uint8_t *data = malloc(len ? len : 1);
	if (!data) {
		free(buf);
		return 1;
	}
	memcpy(data, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(data, len);
	free(data);
	(*n)++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int folder(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "replay: cannot open '%s'\n", dir);
		return 1;
	}
	char **names = NULL;
	size_t k = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (k == cap) {
			char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
			if (!nn)
				break;
			names = nn;
		}
		names[k++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, k, sizeof *names, by_name);
	int rc = 0;
	for (size_t i = 0; i < k; i++) {
		size_t l = strlen(dir) + strlen(names[i]) + 2;
		char *p = malloc(l);
		if (p) {
			snprintf(p, l, "%s/%s", dir, names[i]);
			struct stat st;
			if (!stat(p, &st) && S_ISREG(st.st_mode))
				rc |= one(p, n);
			free(p);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	size_t n = 0;
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: no such file or folder '%s'\n", argv[i]);
			rc = 1;
		} else {
			rc |= S_ISDIR(st.st_mode) ? folder(argv[i], &n) : one(argv[i], &n);
		}
	}
	printf("replayed %zu inputs\n", n);
	return rc;
}
