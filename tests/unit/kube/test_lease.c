/* kube/lease against a scripted Lease (the kube client's fault hook plays the apiserver): the
 * expiry rule by our own clock, a released lease taken at once, a renewing holder never taken,
 * an unbounded acquire ended by the stop flag, loss on another holder and on failed renewals, and
 * the two release modes (clear by update for leader election, delete for migrate). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kube/client.h"
#include "kube/lease.h"
#include "lib/log.h"
#include "tests/unit/kube/fake_client.h"
#include "lib/clock.h"

typedef struct fake {
    pthread_mutex_t mu;
    int exists;
    char holder[64];
    long rv;
    int bump_on_get; /* the holder renews between our looks */
    int fail;        /* answer everything with 500 */
    int releasing;   /* the next PUT is our release */
    int gets, puts, deletes, posts;
    double first_get, first_put;
    char last_method[16];
    char body[512];
} fake;

static void lease_body(fake *s)
{
    snprintf(s->body, sizeof(s->body),
             "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":"
             "\"l\",\"namespace\":\"ns\",\"resourceVersion\":\"%ld\"},\"spec\":{"
             "\"holderIdentity\":\"%s\",\"leaseDurationSeconds\":1,\"leaseTransitions\":3}}",
             s->rv, s->holder);
}

/* The body of a PUT is not visible to the hook: a PUT is our take-over or renewal, unless the
 * test announced the release. */
static int hook(void *ud, const char *method, const char *path, int attempt, cw_kube_fault *f)
{
    (void)path;
    (void)attempt;
    fake *s = ud;
    pthread_mutex_lock(&s->mu);
    snprintf(s->last_method, sizeof(s->last_method), "%s", method);
    if (s->fail) {
        f->status = 500;
        f->body = "{\"kind\":\"Status\",\"code\":500,\"message\":\"etcd down\"}";
    } else if (strcmp(method, "GET") == 0) {
        if (!s->gets++)
            s->first_get = cw_clock_mono();
        if (s->bump_on_get)
            s->rv++;
        lease_body(s);
        f->status = s->exists ? 200 : 404;
        f->body = s->exists ? s->body : "{\"kind\":\"Status\",\"code\":404}";
    } else if (strcmp(method, "PUT") == 0 || strcmp(method, "POST") == 0) {
        if (strcmp(method, "PUT") == 0 && !s->puts++)
            s->first_put = cw_clock_mono();
        if (strcmp(method, "POST") == 0)
            s->posts++;
        s->exists = 1;
        s->rv++;
        snprintf(s->holder, sizeof(s->holder), "%s", s->releasing ? "" : "me");
        lease_body(s);
        f->status = 200;
        f->body = s->body;
    } else {
        s->deletes++;
        s->exists = 0;
        f->status = 200;
        f->body = "{\"kind\":\"Status\",\"status\":\"Success\"}";
    }
    pthread_mutex_unlock(&s->mu);
    return 1;
}

static cw_kube_client *client(fake *s)
{
    cw_kube_client_opts o;
    cw_kube_client_opts_init(&o);
    o.fault = hook;
    o.fault_ud = s;
    o.max_attempts = 1;
    return fake_kube_client(&o, NULL, NULL);
}

static void fake_init(fake *s, int exists, const char *holder)
{
    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->mu, NULL);
    s->exists = exists;
    s->rv = 5;
    snprintf(s->holder, sizeof(s->holder), "%s", holder);
}

static cw_lease_opts opts(int release_clear)
{
    cw_lease_opts o;
    cw_lease_opts_init(&o);
    o.holder = "me";
    o.duration = 1;
    o.renew_interval = 0.1;
    o.renew_deadline = 0.5;
    o.retry_interval = 0.05;
    o.release_clear = release_clear;
    o.purpose = "controller";
    return o;
}

static void expiry_by_our_clock(void **state)
{
    (void)state;
    fake s;
    fake_init(&s, 1, "other");
    cw_kube_client *c = client(&s);
    cw_lease l;
    cw_error err;
    cw_lease_opts o = opts(1);
    assert_int_equal(cw_lease_init(&l, c, "ns", "l", &o, &err), CW_OK);
    assert_int_equal(cw_lease_acquire(&l, 5, &err), CW_OK);
    double waited = s.first_put - s.first_get;
    if (waited < 1.0 || waited > 2.0) /* the upper bound leaves room for a loaded machine */
        fail_msg("took an unchanged lease of 1 s after %.3f s", waited);
    assert_false(cw_lease_lost(&l));
    /* Release by update: the holder cleared, nothing deleted. */
    pthread_mutex_lock(&s.mu);
    s.releasing = 1;
    pthread_mutex_unlock(&s.mu);
    cw_lease_release(&l);
    assert_string_equal(s.last_method, "PUT");
    assert_string_equal(s.holder, "");
    assert_int_equal(s.deletes, 0);
    cw_lease_free(&l);
    cw_kube_client_free(c);
}

static void released_or_missing_taken_at_once(void **state)
{
    (void)state;
    for (int exists = 0; exists <= 1; exists++) {
        fake s;
        fake_init(&s, exists, "");
        cw_kube_client *c = client(&s);
        cw_lease l;
        cw_error err;
        cw_lease_opts o = opts(0);
        assert_int_equal(cw_lease_init(&l, c, "ns", "l", &o, &err), CW_OK);
        double t0 = cw_clock_mono();
        assert_int_equal(cw_lease_acquire(&l, 5, &err), CW_OK);
        assert_true(cw_clock_mono() - t0 < 0.3);
        assert_int_equal(s.posts, exists ? 0 : 1); /* a missing Lease is created */
        cw_lease_release(&l);                      /* migrate's mode: delete */
        assert_string_equal(s.last_method, "DELETE");
        assert_int_equal(s.deletes, 1);
        cw_lease_free(&l);
        cw_kube_client_free(c);
    }
}

static void renewing_holder_is_never_taken(void **state)
{
    (void)state;
    fake s;
    fake_init(&s, 1, "other");
    s.bump_on_get = 1;
    cw_kube_client *c = client(&s);
    cw_lease l;
    cw_error err;
    cw_lease_opts o = opts(0);
    o.wait_hint = "Wait, or raise --lease-wait";
    assert_int_equal(cw_lease_init(&l, c, "ns", "l", &o, &err), CW_OK);
    assert_int_equal(cw_lease_acquire(&l, 1.5, &err), CW_ECONFLICT);
    assert_string_equal(err.message,
                        "another controller holds lease ns/l (holder other); it ends or expires 1s "
                        "after its last renewal. Wait, or raise --lease-wait");
    assert_int_equal(s.puts, 0);
    cw_lease_free(&l);
    cw_kube_client_free(c);
}

static atomic_int stop_flag;
static void *set_stop(void *arg)
{
    (void)arg;
    usleep(300 * 1000);
    atomic_store(&stop_flag, 1);
    return NULL;
}

static void stop_ends_an_unbounded_acquire(void **state)
{
    (void)state;
    fake s;
    fake_init(&s, 1, "other");
    s.bump_on_get = 1;
    cw_kube_client *c = client(&s);
    cw_lease l;
    cw_error err;
    cw_lease_opts o = opts(1);
    atomic_store(&stop_flag, 0);
    o.stop = &stop_flag;
    assert_int_equal(cw_lease_init(&l, c, "ns", "l", &o, &err), CW_OK);
    pthread_t t;
    pthread_create(&t, NULL, set_stop, NULL);
    double t0 = cw_clock_mono();
    assert_int_equal(cw_lease_acquire(&l, -1, &err), 1);
    assert_true(cw_clock_mono() - t0 < 1.0);
    pthread_join(t, NULL);
    cw_lease_free(&l);
    cw_kube_client_free(c);
}

static void wait_lost(cw_lease *l, double max)
{
    double t0 = cw_clock_mono();
    while (!cw_lease_lost(l) && cw_clock_mono() - t0 < max)
        usleep(10 * 1000);
}

static void lost_to_another_holder_or_failed_renewals(void **state)
{
    (void)state;
    for (int how = 0; how < 2; how++) {
        fake s;
        fake_init(&s, 0, "");
        cw_kube_client *c = client(&s);
        cw_lease l;
        cw_error err;
        cw_lease_opts o = opts(1);
        assert_int_equal(cw_lease_init(&l, c, "ns", "l", &o, &err), CW_OK);
        assert_int_equal(cw_lease_acquire(&l, 5, &err), CW_OK);
        usleep(250 * 1000); /* a few good renewals */
        assert_false(cw_lease_lost(&l));
        pthread_mutex_lock(&s.mu);
        if (how == 0)
            snprintf(s.holder, sizeof(s.holder), "%s", "thief");
        else
            s.fail = 1;
        pthread_mutex_unlock(&s.mu);
        double t0 = cw_clock_mono();
        wait_lost(&l, 3);
        double took = cw_clock_mono() - t0;
        assert_true(cw_lease_lost(&l));
        if (how == 0) {
            assert_string_equal(l.lost_why, "lease ns/l is now held by thief");
            assert_true(took < 1.0); /* at the next renewal (every 0.1 s) */
        } else {
            assert_non_null(strstr(l.lost_why, "lease ns/l could not be renewed for 0.5s: "));
            if (took < 0.3 || took > 2.0) /* after the 0.5 s deadline since the last success */
                fail_msg("lost %.3f s after renewals began to fail", took);
        }
        int writes = s.puts + s.deletes;
        cw_lease_release(&l); /* a lost lease is not touched */
        assert_int_equal(s.puts + s.deletes, writes);
        cw_lease_free(&l);
        cw_kube_client_free(c);
    }
}

int main(void)
{
    cw_log_configure(CW_LOG_OFF, CW_LOG_TEXT, stderr);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expiry_by_our_clock),
        cmocka_unit_test(released_or_missing_taken_at_once),
        cmocka_unit_test(renewing_holder_is_never_taken),
        cmocka_unit_test(stop_ends_an_unbounded_acquire),
        cmocka_unit_test(lost_to_another_holder_or_failed_renewals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
