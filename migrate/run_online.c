/* Online migrate (the upgrade Job): lease, recovery, discovery, gather, plan, apply, report. */
#include <stdio.h>
#include <string.h>

#include "kube/client.h"
#include "lib/log.h"
#include "migrate/apply.h"
#include "kube/lease.h"
#include "migrate/progress.h"
#include "migrate/run.h"

#define LEASE_NAME "cronwarden-migrate"

/* Before anything was written, an unreachable or unauthorised server is a configuration error. */
static int setup_exit(const cw_error *err)
{
    if (err->code == CW_ETRANSPORT || err->http_status == 401)
        return CW_MIGRATE_USAGE;
    return CW_MIGRATE_FINDINGS;
}

int cw_migrate_online(const cw_migrate_opts *o, cw_plan *plan)
{
    cw_error err;
    cw_error_init(&err);
    cw_kube_config cfg;
    cw_kube_config_init(&cfg);
    cw_kube_client *kube = NULL;
    cw_lease lease;
    int lease_init = 0, lease_held = 0;
    cw_progress progress;
    cw_progress_init(&progress, stderr, -1);
    int code = CW_MIGRATE_USAGE;
    int client_only = strcmp(o->dry_run, "client") == 0;
    int server_dry = strcmp(o->dry_run, "server") == 0;

    cw_kube_load_opts lo;
    cw_kube_load_opts_init(&lo);
    lo.kubeconfig = o->kubeconfig && *o->kubeconfig ? o->kubeconfig : NULL;
    lo.context = o->context && *o->context ? o->context : NULL;
    if (cw_kube_config_load(&cfg, &lo, &err) != CW_OK) {
        fprintf(stderr, "cronwarden migrate: %s\n", err.message);
        goto done;
    }
    cw_kube_client_opts co;
    cw_kube_client_opts_init(&co);
    co.qps = o->qps;
    co.burst = (int)o->burst;
    co.qps_auto = !o->qps_explicit;
    co.log_limit = 1;
    co.max_inflight = (int)o->parallel;
    co.timeout = o->request_timeout;
    co.dry_run = server_dry;
    if (cw_kube_client_new(&cfg, &co, &kube, &err) != CW_OK) {
        fprintf(stderr, "cronwarden migrate: %s\n", err.message);
        goto done;
    }
    cw_log(CW_LOG_INFO, "migrate starting", CW_LS("server", cfg.server),
           CW_LS("config", cfg.source), CW_LS("namespace", o->namespace),
           CW_LS("dry_run", o->dry_run), CW_LS("name_scheme", o->name_scheme));

    cw_apply a;
    cw_apply_config ac = {
        .namespace = o->namespace,
        .page_size = (long)o->page_size,
        .parallel = (size_t)o->parallel,
        .dry_run = server_dry,
        .read_only = client_only,
        .wait_for_controller = o->wait_for_controller,
        .wait_timeout = o->wait_timeout,
        .progress = &progress,
    };
    if (cw_apply_discover(&a, kube, &ac, &err) != CW_OK) {
        fprintf(stderr, "cronwarden migrate: %s\n", err.message);
        code = setup_exit(&err);
        goto done;
    }
    if (!client_only) {
        cw_lease_opts lopts;
        cw_lease_opts_init(&lopts);
        lopts.duration = (int)(o->lease_duration + 0.5);
        lopts.dry_run = server_dry;
        lopts.purpose = "migration";
        lopts.wait_hint = "Wait, or raise --lease-wait";
        if (cw_lease_init(&lease, kube, o->namespace, LEASE_NAME, &lopts, &err) != CW_OK)
            goto fail;
        lease_init = 1;
        if (cw_lease_acquire(&lease, o->lease_wait, &err) != CW_OK) {
            fprintf(stderr, "cronwarden migrate: %s\n", err.message);
            code = setup_exit(&err);
            goto done;
        }
        lease_held = 1;
        a.cfg.lease = &lease;
    }
    if (cw_apply_recover_storageclasses(&a, &err) != CW_OK)
        goto fail;
    if (cw_apply_gather(&a, plan, &err) != CW_OK)
        goto fail;
    if (!client_only && cw_apply_run(&a, plan, &err) != CW_OK)
        goto fail;
    if (lease_held) {
        cw_lease_release(&lease);
        lease_held = 0;
    }
    cw_report_info info = {"online", o->dry_run, NULL, 0};
    if (cw_migrate_report(plan, &info, o, NULL, &err) != CW_OK)
        goto fail;
    cw_report_summary s;
    cw_report_summarize(plan, &s);
    code = cw_report_exit_code(&s, o->detailed_exitcode);
    cw_kube_stats st;
    cw_kube_client_stats(kube, &st);
    /* The item file only grows: its size now is what the scratch directory had to hold (the
     * figure an operator sizes the Job's /tmp by, docs/deploy.md). */
    cw_log(CW_LOG_INFO, "migrate finished", CW_LI("exit_code", code),
           CW_LI("requests", st.requests), CW_LI("retries", st.retries),
           CW_LI("connections", st.connects), CW_LD("throttled_seconds", st.throttled),
           CW_LI("item_file_bytes", plan->store.end));
    goto done;
fail:
    fprintf(stderr, "cronwarden migrate: %s\n", err.message);
    code = CW_MIGRATE_FINDINGS;
    /* What was done so far is still worth a report. */
    if (plan->finished) {
        cw_report_info partial = {"online", o->dry_run, NULL, 0};
        cw_error e2;
        cw_error_init(&e2);
        if (cw_migrate_report(plan, &partial, o, NULL, &e2) != CW_OK)
            cw_log(CW_LOG_WARN, "the partial report could not be written",
                   CW_LS("error", e2.message));
    }
done:
    if (lease_held)
        cw_lease_release(&lease);
    if (lease_init)
        cw_lease_free(&lease);
    cw_kube_client_free(kube);
    cw_kube_config_free(&cfg);
    cw_progress_free(&progress);
    return code;
}
