/* controller/core/events: the Event object about a reconciled object, as client-go's recorder
 * writes it (name "<object>.<hex nanoseconds>", involvedObject from the object), and the names
 * of Events about one occurrence. The expected hashes were computed apart from the code under
 * test, by XXH64 as the xxHash specification writes it (a Python transcription checked against
 * the specification's vectors: "" ef46db3751d8e999, "abc" 44bc2cf5ad770999). */
#include "ctrl_test.h"

#include "controller/core/events.h"

static void event_of_a_backup(void **state)
{
    (void)state;
    json_object *b = tjson("{'apiVersion':'velero.io/v1','kind':'Backup','metadata':{'name':"
                           "'nightly','namespace':'velero','uid':'u-1','resourceVersion':'42'},"
                           "'spec':{'includedNamespaces':['shop']}}");
    json_object *ev = NULL;
    cw_error err;
    int64_t now_ms = ttime("2026-03-28T01:00:06Z") * 1000 + 250;
    assert_int_equal(cw_ctrl_event_build(b, "Normal", "Queued", "Backup is queued at position 3",
                                         now_ms, &ev, &err),
                     CW_OK);
    expect_json(ev,
                "{'apiVersion':'v1','kind':'Event','metadata':{'name':'nightly.18a0db8263c40e80',"
                "'namespace':'velero'},'involvedObject':{'apiVersion':'velero.io/v1','kind':"
                "'Backup','name':'nightly','namespace':'velero','uid':'u-1','resourceVersion':"
                "'42'},'source':{'component':'cronwarden-controller'},'type':'Normal','reason':"
                "'Queued','message':'Backup is queued at position 3','firstTimestamp':"
                "'2026-03-28T01:00:06Z','lastTimestamp':'2026-03-28T01:00:06Z','count':1,"
                "'reportingComponent':'cronwarden-controller'}",
                "event", "a Backup's Event");
    json_object_put(ev);
    json_object_put(b);

    json_object *nameless = tjson("{'metadata':{'namespace':'velero'}}");
    assert_int_equal(cw_ctrl_event_build(nameless, "Normal", "Queued", "m", now_ms, &ev, &err),
                     CW_EINVAL);
    assert_string_equal(err.message, "event Queued: the object has no metadata.name");
    assert_null(ev);
    json_object_put(nameless);
}

/* name: head, then fill repeated nfill times, then tail; the Event name expected: the first
 * keep characters of that name, ".", hash. */
typedef struct {
    const char *what, *api, *kind, *ns, *head;
    char fill;
    size_t nfill;
    const char *tail;
    size_t keep;
    const char *hash;
} name_case;

#define OCCURRENCE 0x18862a8f9780f801u /* 2026-01-01T02:05:00Z in nanoseconds */

static const name_case name_cases[] = {
    {"a RecurringJob", "longhorn.io/v1beta2", "RecurringJob", "longhorn-system", "daily", 0, 0, "",
     5, "09ffe8ed090e8289"},
    {"a Velero Schedule of the same name, namespace and occurrence", "velero.io/v1", "Schedule",
     "longhorn-system", "daily", 0, 0, "", 5, "520efe7e86c626a7"},
    {"252 characters: cut to 236", "velero.io/v1", "Schedule", "velero", "nightly-", 'a', 242, "-1",
     236, "8a323feeb67a5447"},
    {"the same first 250 characters", "velero.io/v1", "Schedule", "velero", "nightly-", 'a', 242,
     "-2", 236, "b761ddb4f322feac"},
    {"a cut on '-' ends on the letter before it", "velero.io/v1", "Schedule", "velero", "", 'x',
     235, "-yyyyyyyyyy", 235, "af1cf32037bcd5f5"},
};

static void event_names(void **state)
{
    (void)state;
    char seen[sizeof(name_cases) / sizeof(name_cases[0])][CW_CTRL_EVENT_NAME_MAX + 1];
    for (size_t i = 0; i < sizeof(name_cases) / sizeof(name_cases[0]); i++) {
        const name_case *tc = &name_cases[i];
        char name[300], want[300], got[CW_CTRL_EVENT_NAME_MAX + 1];
        int n = snprintf(name, sizeof(name), "%s", tc->head);
        memset(name + n, tc->fill, tc->nfill);
        snprintf(name + n + tc->nfill, sizeof(name) - n - tc->nfill, "%s", tc->tail);
        snprintf(want, sizeof(want), "%.*s.%s", (int)tc->keep, name, tc->hash);
        json_object *obj = json_object_new_object();
        json_object *meta = json_object_new_object();
        json_object_object_add(obj, "apiVersion", json_object_new_string(tc->api));
        json_object_object_add(obj, "kind", json_object_new_string(tc->kind));
        json_object_object_add(obj, "metadata", meta);
        json_object_object_add(meta, "name", json_object_new_string(name));
        json_object_object_add(meta, "namespace", json_object_new_string(tc->ns));
        cw_ctrl_event_name(obj, OCCURRENCE, got, sizeof(got));
        if (strcmp(got, want) != 0 || strlen(got) > CW_CTRL_EVENT_NAME_MAX)
            fail_msg("%s: got %s, want %s", tc->what, got, want);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(seen[j], got))
                fail_msg("%s: the same Event name as %s", tc->what, name_cases[j].what);
        snprintf(seen[i], sizeof(seen[i]), "%s", got);
        json_object_put(obj);
    }
}

/* A step Event (client-go's name) about an object whose name leaves no room for the time. */
static void event_of_a_long_name(void **state)
{
    (void)state;
    char name[251], want[300];
    memset(name, 'b', 250);
    name[250] = 0;
    json_object *b = json_object_new_object(), *meta = json_object_new_object(), *ev = NULL;
    json_object_object_add(b, "apiVersion", json_object_new_string("velero.io/v1"));
    json_object_object_add(b, "kind", json_object_new_string("Backup"));
    json_object_object_add(b, "metadata", meta);
    json_object_object_add(meta, "name", json_object_new_string(name));
    json_object_object_add(meta, "namespace", json_object_new_string("velero"));
    cw_error err;
    int64_t now_ms = ttime("2026-03-28T01:00:06Z") * 1000 + 250; /* 0x18a0db8263c40e80 ns */
    assert_int_equal(cw_ctrl_event_build(b, "Normal", "Queued", "m", now_ms, &ev, &err), CW_OK);
    snprintf(want, sizeof(want), "%.236s.44e8a2622247913a", name);
    assert_string_equal(cw_json_path_string(ev, "metadata.name"), want);
    json_object_put(ev);
    json_object_put(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(event_of_a_backup),
                                       cmocka_unit_test(event_names),
                                       cmocka_unit_test(event_of_a_long_name)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
