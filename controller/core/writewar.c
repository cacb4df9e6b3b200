#include "controller/core/writewar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "lib/json.h"

typedef struct war_obj {
    uint64_t want;
    char uid[64];
    int64_t rewrites[CW_CTRL_WAR_REWRITES + 1]; /* times of rewrites within the window */
    int n, contested;
} war_obj;

int cw_ctrl_warguard_init(cw_ctrl_warguard *g, cw_error *err)
{
    memset(g, 0, sizeof(*g));
    cw_strmap_init(&g->objs);
    if (pthread_mutex_init(&g->mu, NULL) != 0)
        return cw_error_oom(err);
    g->ok = 1;
    return CW_OK;
}

void cw_ctrl_warguard_free(cw_ctrl_warguard *g)
{
    if (!g->ok)
        return;
    cw_strmap_free(&g->objs, free);
    pthread_mutex_destroy(&g->mu);
    memset(g, 0, sizeof(*g));
}

uint64_t cw_ctrl_war_fingerprint(json_object *obj)
{
    const char *s = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN);
    return s ? XXH3_64bits(s, strlen(s)) : 0;
}

/* Drops the rewrites older than the window. */
static void expire(war_obj *o, int64_t now_ms)
{
    int k = 0;
    for (int i = 0; i < o->n; i++)
        if (now_ms - o->rewrites[i] < (int64_t)CW_CTRL_WAR_WINDOW_S * 1000)
            o->rewrites[k++] = o->rewrites[i];
    o->n = k;
}

cw_ctrl_war cw_ctrl_warguard_check(cw_ctrl_warguard *g, const char *key, const char *uid,
                                   uint64_t want, int64_t now_ms)
{
    cw_ctrl_war verdict = CW_WAR_WRITE;
    pthread_mutex_lock(&g->mu);
    war_obj *o = cw_strmap_get_s(&g->objs, key);
    if (o && uid && strcmp(o->uid, uid) == 0 && o->want == want) {
        /* The same content to the same object again: someone undid this reconciler's write. */
        expire(o, now_ms);
        if (o->contested) {
            verdict = CW_WAR_CONTESTED;
        } else if (o->n >= CW_CTRL_WAR_REWRITES) {
            o->contested = 1;
            verdict = CW_WAR_NEW;
        }
    }
    pthread_mutex_unlock(&g->mu);
    return verdict;
}

void cw_ctrl_warguard_wrote(cw_ctrl_warguard *g, const char *key, const char *uid, uint64_t want,
                            int64_t now_ms)
{
    pthread_mutex_lock(&g->mu);
    war_obj *o = cw_strmap_get_s(&g->objs, key);
    if (!o) {
        if (g->objs.len >= CW_CTRL_WAR_MAX) { /* bounded: forget, a war starts counting anew */
            cw_strmap_free(&g->objs, free);
            cw_strmap_init(&g->objs);
        }
        if ((o = calloc(1, sizeof(*o))) && cw_strmap_set_s(&g->objs, key, o, NULL) != CW_OK) {
            free(o);
            o = NULL;
        }
    }
    if (o) {
        const char *u = uid ? uid : "";
        if (strcmp(o->uid, u) != 0 || o->want != want) { /* a new object or new content */
            o->n = 0;
            o->contested = 0;
        } else { /* a rewrite of the same content: counted */
            expire(o, now_ms);
            if (o->n < CW_CTRL_WAR_REWRITES + 1)
                o->rewrites[o->n++] = now_ms;
        }
        snprintf(o->uid, sizeof(o->uid), "%s", u);
        o->want = want;
    }
    pthread_mutex_unlock(&g->mu);
}

const char *cw_ctrl_war_other_writer(json_object *obj, const char *ours)
{
    json_object *mf = cw_json_path(obj, "metadata.managedFields");
    const char *who = NULL, *when = "";
    size_t n = json_object_is_type(mf, json_type_array) ? json_object_array_length(mf) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(mf, i);
        const char *m = cw_json_path_string(e, "manager");
        const char *op = cw_json_path_string(e, "operation");
        const char *t = cw_json_path_string(e, "time");
        if (!m || !op || strcmp(op, "Update") != 0 || (ours && strcmp(m, ours) == 0))
            continue;
        /* RFC 3339 in UTC with a fixed width compares as text. */
        if (!who || strcmp(t ? t : "", when) >= 0) {
            who = m;
            when = t ? t : "";
        }
    }
    return who;
}
