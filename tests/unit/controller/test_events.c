/* controller/core/events: the Event object about a reconciled object, as client-go's recorder
 * writes it (name "<object>.<hex nanoseconds>", involvedObject from the object). */
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

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(event_of_a_backup)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
