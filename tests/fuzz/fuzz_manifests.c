/* Offline migrate on one file's text: kube/manifest (YAML multi-document or JSON, Lists flattened)
 * feeding the planner (cw_plan_add, cw_plan_finish), then migrate/write rewriting the same text
 * (cw_write_transform) and the RecurringJobs (cw_write_recurringjobs). Invariants, besides no
 * crash, leak or UB:
 *   - every failure carries a message;
 *   - text that loads and plans is rewritten without error;
 *   - the rewrite re-loads without error, object for object what the plan says: unchanged
 *     objects equal, migrated ones equal to cw_plan_apply_item's result, deleted CronJobs gone;
 *   - the rewrite is a fixed point: planning it again changes nothing more;
 *   - the RecurringJobs file loads, one object per job created;
 *   - lib/jsonprune over the same text (cron status's paths and one more): JSON stays JSON, and
 *     a text with nothing pruned comes back byte for byte. */
#include "fuzz.h"
#include "lib/json.h"
#include "lib/jsonprune.h"
#include "lib/jsonwalk.h"
#include "cron/tz.h"
#include "kube/manifest.h"
#include "migrate/plan.h"
#include "migrate/write.h"

static cw_tzdb tzdb;
static cw_policy_config policy;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    cw_error err;
    cw_error_init(&err);
    FUZZ_CHECK(cw_tzdb_init(&tzdb, NULL, &err) == CW_OK, "%s", err.message);
    FUZZ_CHECK(cw_policy_config_init(&policy) == CW_OK, "out of memory");
    policy.tzdb = &tzdb;
    return 0;
}

typedef struct {
    cw_plan *plan;     /* NULL: only collect */
    json_object *objs; /* every unit, in order */
} feed_ctx;

static int feed(void *ud, const cw_load_unit *u, cw_error *err)
{
    feed_ctx *c = ud;
    json_object_array_add(c->objs, json_object_get(u->obj));
    if (!c->plan)
        return CW_OK;
    char where[512];
    cw_load_where(u, where, sizeof(where));
    return cw_plan_add(c->plan, u->obj, where, err);
}

/* What the rewrite must hold in place of obj: NULL when dropped (caller owns the result). */
static json_object *expected(const cw_plan *p, json_object *obj)
{
    json_object *copy = NULL;
    FUZZ_CHECK(cw_json_copy(obj, &copy) == CW_OK, "oom");
    if (!json_object_is_type(obj, json_type_object))
        return copy;
    const char *kind = cw_json_path_string(obj, "kind");
    const char *av = cw_json_path_string(obj, "apiVersion");
    if (kind && av && strcmp(kind, "CronJob") == 0 && strncmp(av, "batch/", 6) == 0) {
        const char *ns = cw_json_path_string(obj, "metadata.namespace");
        const char *name = cw_json_path_string(obj, "metadata.name");
        for (size_t i = 0; name && i < p->ncronjobs; i++)
            if (p->cronjobs[i].action == CW_ACT_DELETE && strcmp(p->cronjobs[i].name, name) == 0 &&
                strcmp(p->cronjobs[i].namespace, ns ? ns : "") == 0) {
                json_object_put(copy);
                return NULL;
            }
        return copy;
    }
    cw_plan_item it;
    cw_error err;
    cw_error_init(&err);
    FUZZ_CHECK(cw_plan_decide(p, copy, &it, &err) == CW_OK, "decide: %s", err.message);
    if (it.action == CW_ACT_MIGRATE)
        FUZZ_CHECK(cw_plan_apply_item(&it, copy, &err) == CW_OK, "apply: %s", err.message);
    cw_plan_item_free(&it);
    return copy;
}

static int plan_text(cw_plan *plan, const char *path, const char *data, size_t len,
                     json_object *objs, cw_error *err)
{
    cw_plan_config cfg = {.scheme = CW_NAMES_XXH32,
                          .namespace = "longhorn-system",
                          .policy = &policy,
                          .default_group = 1,
                          .scratch_dir = ""}; /* as cmd/migrate.c offline: items in memory */
    FUZZ_CHECK(cw_plan_init(plan, &cfg, err) == CW_OK, "%s", err->message);
    feed_ctx fc = {plan, objs};
    int rc = cw_load_text(path, data, len, feed, &fc, err);
    if (rc == CW_OK)
        rc = cw_plan_finish(plan, err);
    if (rc != CW_OK)
        FUZZ_CHECK(rc < 0 && err->message[0], "rc %d without a message", rc);
    return rc;
}

static void check_prune(const char *text, size_t size)
{
    static const char *const paths[] = {"spec.template.spec", "spec.jobTemplate", "metadata", NULL};
    cw_buf out;
    size_t n = 0;
    cw_buf_init(&out);
    int rc = cw_json_prune(text, size, JSON_TOKENER_DEFAULT_DEPTH, paths, &out, &n);
    FUZZ_CHECK(rc == CW_OK || rc == CW_EINVAL, "cw_json_prune: %d", rc);
    if (rc == CW_OK) {
        FUZZ_CHECK(n > 0 || (out.len == size && memcmp(out.data, text, size) == 0),
                   "nothing pruned, yet the text changed: %s", cw_buf_str(&out));
        FUZZ_CHECK(cw_json_walk(out.data, out.len, JSON_TOKENER_DEFAULT_DEPTH, NULL, NULL, 0,
                                &(size_t){0}) == CW_OK,
                   "the pruned text is no JSON: %s", cw_buf_str(&out));
    }
    cw_buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_dup(data, size);
    cw_plan plan, again;
    cw_error err;
    cw_buf out, out2, rjs;
    size_t changed = 0, changed2 = 0, njobs = 0;
    json_object *objs = json_object_new_array(), *reloaded = json_object_new_array();
    json_object *objs2 = json_object_new_array();
    int planned_again = 0;
    cw_error_init(&err);
    cw_buf_init(&out);
    cw_buf_init(&out2);
    cw_buf_init(&rjs);
    memset(&again, 0, sizeof(again));
    check_prune(text, size);

    if (plan_text(&plan, "in.yaml", text, size, objs, &err) != CW_OK)
        goto done;
    int rc = cw_write_transform(&plan, "in.yaml", text, size, &out, &changed, &err);
    FUZZ_CHECK(rc == CW_OK, "planned text not rewritten: %s", err.message);

    feed_ctx fc = {NULL, reloaded};
    rc = cw_load_text("out.yaml", out.data ? out.data : "", out.len, feed, &fc, &err);
    FUZZ_CHECK(rc == CW_OK, "the rewrite does not load: %s\n--- rewrite:\n%s", err.message,
               cw_buf_str(&out));
    size_t k = 0, dropped = 0;
    for (size_t i = 0; i < json_object_array_length(objs); i++) {
        json_object *want = expected(&plan, json_object_array_get_idx(objs, i));
        if (!want) {
            dropped++;
            continue;
        }
        FUZZ_CHECK(k < json_object_array_length(reloaded), "the rewrite lost object %zu", i);
        json_object *got = json_object_array_get_idx(reloaded, k++);
        FUZZ_CHECK(json_object_equal(want, got), "object %zu:\nwant %s\ngot  %s\n--- rewrite:\n%s",
                   i, json_object_to_json_string(want), json_object_to_json_string(got),
                   cw_buf_str(&out));
        json_object_put(want);
    }
    FUZZ_CHECK(k == json_object_array_length(reloaded), "the rewrite has %zu more objects",
               json_object_array_length(reloaded) - k);
    FUZZ_CHECK(dropped <= changed, "%zu dropped, %zu changed", dropped, changed);

    /* A fixed point: the migrated text migrates to itself. */
    planned_again = 1;
    rc = plan_text(&again, "out.yaml", out.data ? out.data : "", out.len, objs2, &err);
    FUZZ_CHECK(rc == CW_OK, "the rewrite does not plan: %s\n--- rewrite:\n%s", err.message,
               cw_buf_str(&out));
    rc = cw_write_transform(&again, "out.yaml", out.data ? out.data : "", out.len, &out2, &changed2,
                            &err);
    FUZZ_CHECK(rc == CW_OK, "%s", err.message);
    FUZZ_CHECK(changed2 == 0 && out2.len == out.len &&
                   (out.len == 0 || memcmp(out.data, out2.data, out.len) == 0),
               "migrating the rewrite changes %zu objects:\n--- rewrite:\n%s\n--- again:\n%s",
               changed2, cw_buf_str(&out), cw_buf_str(&out2));

    rc = cw_write_recurringjobs(&plan, &rjs, &njobs, &err);
    FUZZ_CHECK(rc == CW_OK, "%s", err.message);
    json_object_put(reloaded);
    reloaded = json_object_new_array();
    fc.objs = reloaded;
    rc = cw_load_text("recurringjobs.yaml", rjs.data ? rjs.data : "", rjs.len, feed, &fc, &err);
    FUZZ_CHECK(rc == CW_OK && json_object_array_length(reloaded) == njobs,
               "recurringjobs.yaml: %s (%zu objects for %zu jobs)\n%s", err.message,
               json_object_array_length(reloaded), njobs, cw_buf_str(&rjs));
done:
    cw_plan_free(&plan);
    if (planned_again)
        cw_plan_free(&again);
    json_object_put(objs);
    json_object_put(objs2);
    json_object_put(reloaded);
    cw_buf_free(&out);
    cw_buf_free(&out2);
    cw_buf_free(&rjs);
    free(text);
    return 0;
}
