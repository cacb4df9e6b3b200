/* The suggestions as something to apply: the changed objects for a GitOps repository, or merge
 * patches for a live cluster. Nothing here writes to a cluster. */
#include <string.h>

#include "audit/internal.h"
#include "lib/buf.h"
#include "lib/yaml.h"

static const char *field_of(const cw_audit_job *j)
{
    return j->kind == CW_AUDIT_SCHEDULE ? "schedule" : "cron";
}

/* The object as read, with the new cron and without what the server owns. */
static int manifest(const cw_audit_job *j, const char *cron, cw_buf *out, cw_error *err)
{
    static const char *const server_owned[] = {
        "resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink"};
    json_object *copy = NULL, *meta, *spec;
    int rc = json_object_deep_copy(j->object, &copy, NULL) ? CW_ENOMEM : CW_OK;
    if (rc == CW_OK) {
        json_object_object_del(copy, "status");
        if ((meta = json_object_object_get(copy, "metadata")))
            for (size_t i = 0; i < sizeof(server_owned) / sizeof(server_owned[0]); i++)
                json_object_object_del(meta, server_owned[i]);
        if (!(spec = json_object_object_get(copy, "spec")) ||
            json_object_object_add(spec, field_of(j), json_object_new_string(cron)))
            rc = CW_ENOMEM;
    }
    if (rc == CW_OK && (rc = cw_buf_puts(out, "---\n")) == CW_OK)
        rc = cw_yaml_emit(copy, out, err);
    json_object_put(copy);
    return rc == CW_ENOMEM ? cw_error_oom(err) : rc;
}

/* kubectl patch <resource> NAME -n NS --type merge -p '{"spec":{"cron":"..."}}' */
static int merge_patch(const cw_audit_job *j, const char *cron, cw_buf *out)
{
    json_object *p = json_object_new_object(), *spec = json_object_new_object();
    json_object_object_add(spec, field_of(j), json_object_new_string(cron));
    json_object_object_add(p, "spec", spec);
    const char *text =
        json_object_to_json_string_ext(p, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = cw_buf_printf(out, "kubectl patch %s %s -n %s --type merge -p '",
                           j->kind == CW_AUDIT_SCHEDULE ? "schedules.velero.io"
                                                        : "recurringjobs.longhorn.io",
                           j->name, j->namespace);
    for (const char *c = text; rc == CW_OK && *c; c++) /* ' inside single quotes: '\'' */
        rc = *c == '\'' ? cw_buf_puts(out, "'\\''") : cw_buf_putc(out, *c);
    if (rc == CW_OK)
        rc = cw_buf_puts(out, "'\n");
    json_object_put(p);
    return rc;
}

int cw_audit_write_patch(const cw_audit *a, int live, FILE *f, cw_error *err)
{
    cw_buf out;
    cw_buf_init(&out);
    int rc = cw_buf_printf(&out,
                           live ? "#!/bin/sh\n# cronwarden cron audit --suggest: %zu merge "
                                  "patch(es); review, then run.\nset -e\n"
                                : "# cronwarden cron audit --suggest: %zu changed "
                                  "object(s); kubectl apply -f this file.\n",
                           a->nsuggestions);
    for (size_t i = 0; rc == CW_OK && i < a->nsuggestions; i++) {
        const cw_audit_job *j = &a->jobs[a->suggestions[i].job];
        const char *cron = a->suggestions[i].cron;
        rc = live ? merge_patch(j, cron, &out) : manifest(j, cron, &out, err);
    }
    if (rc == CW_OK && fwrite(out.data, 1, out.len, f) != out.len)
        rc = cw_error_set(err, CW_EIO, "writing the patch failed");
    else if (rc == CW_ENOMEM)
        rc = cw_error_oom(err);
    cw_buf_free(&out);
    return rc;
}
