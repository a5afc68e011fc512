/*
 * kineto_tracks.c — the reader's index of timelines: one track per (pid,
 * tid) pair as written (integer, text or absent, each kept apart), found
 * by hashing with the last one used checked first; process metadata (M
 * process_name / process_labels) per pid, copied onto the tracks at the
 * end. Touches kt->tracks and the indexes in kt->priv_ only.
 * Layer: read (private).
 */
#include "trace/read/kineto_int.h"

#include <stdlib.h>

static uint64_t tkey_hash(const struct tkey *k)
{
	return gf_hash_u64((uint64_t)k->p * 0x9e3779b97f4a7c15ULL ^ (uint64_t)k->t ^
			   ((uint64_t)k->pk << 60) ^ ((uint64_t)k->tk << 62));
}

static bool tkey_eq(const struct tkey *a, const struct tkey *b)
{
	return a->p == b->p && a->t == b->t && a->pk == b->pk && a->tk == b->tk;
}

static void track_rehash(struct kineto_trace *kt, struct priv *pv)
{
	size_t ns = pv->nslot ? pv->nslot * 2 : 256;
	uint32_t *slot = gf_xcalloc(ns, sizeof *slot);
	for (uint32_t i = 0; i < kt->ntracks; i++) {
		size_t j = tkey_hash(&pv->keys[i]) & (ns - 1);
		while (slot[j])
			j = (j + 1) & (ns - 1);
		slot[j] = i + 1;
	}
	free(pv->slot);
	pv->slot = slot;
	pv->nslot = ns;
}

uint32_t kineto_tracks_get(struct kineto_trace *kt, struct priv *pv, const struct idv *pid, const struct idv *tid)
{
	struct tkey k = { pid->v, tid->v, pid->kind, tid->kind };
	if (pv->last != UINT32_MAX && tkey_eq(&pv->keys[pv->last], &k))
		return pv->last;
	if ((size_t)(kt->ntracks + 1) * 2 > pv->nslot)
		track_rehash(kt, pv);
	size_t j = tkey_hash(&k) & (pv->nslot - 1);
	while (pv->slot[j]) {
		uint32_t i = pv->slot[j] - 1;
		if (tkey_eq(&pv->keys[i], &k))
			return pv->last = i;
		j = (j + 1) & (pv->nslot - 1);
	}
	if (kt->ntracks == kt->cap_tracks) {
		kt->cap_tracks = kt->cap_tracks ? kt->cap_tracks * 2 : 64;
		kt->tracks = gf_xreallocarray(kt->tracks, kt->cap_tracks, sizeof *kt->tracks);
		pv->keys = gf_xreallocarray(pv->keys, kt->cap_tracks, sizeof *pv->keys);
	}
	uint32_t i = kt->ntracks++;
	struct ktrack *t = &kt->tracks[i];
	t->pid = pid->kind == 0 ? pid->v : KEV_NONE;
	t->tid = tid->kind == 0 ? tid->v : KEV_NONE;
	t->pid_str = pid->str;
	t->tid_str = tid->str;
	t->thread_name = t->process_name = t->process_label = UINT32_MAX;
	t->is_device = false;
	t->gpu_work = false;
	pv->keys[i] = k;
	pv->slot[j] = i + 1;
	return pv->last = i;
}

struct pidmeta *kineto_tracks_pid(struct priv *pv, const struct idv *pid)
{
	for (size_t i = 0; i < pv->pids.n; i++)
		if (pv->pids.v[i].p == pid->v && pv->pids.v[i].pk == pid->kind)
			return &pv->pids.v[i];
	struct pidmeta *m = vec_add(&pv->pids);
	m->p = pid->v;
	m->pk = pid->kind;
	m->name = m->label = UINT32_MAX;
	return m;
}

struct priv *kineto_tracks_new(void)
{
	struct priv *pv = gf_xcalloc(1, sizeof *pv);
	pv->last = UINT32_MAX;
	for (unsigned i = 0; i < 64; i++)
		pv->cc[i].id = UINT32_MAX;
	return pv;
}

void kineto_tracks_free(struct priv *pv)
{
	if (!pv)
		return;
	free(pv->keys);
	free(pv->slot);
	free(pv->cat_slot);
	vec_free(&pv->pids);
	free(pv);
}

void kineto_tracks_finish(struct rd *r)
{
	struct kineto_trace *kt = r->kt;
	for (uint32_t i = 0; i < kt->ntracks; i++) {
		struct idv pid = { r->pv->keys[i].p, UINT32_MAX, r->pv->keys[i].pk };
		for (size_t j = 0; j < r->pv->pids.n; j++) {
			const struct pidmeta *pm = &r->pv->pids.v[j];
			if (pm->p == pid.v && pm->pk == pid.kind) {
				kt->tracks[i].process_name = pm->name;
				kt->tracks[i].process_label = pm->label;
			}
		}
	}
}
