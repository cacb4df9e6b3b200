/* cronwarden controller: flags -> configuration, the Kubernetes client, the controller (informers,
 * leader election, workers, metrics server) and the signal loop that stops it gracefully. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "controller/core/manager.h"
#include "kube/client.h"
#include "kube/config.h"
#include "lib/k8sname.h"
#include "lib/listen.h"
#include "lib/log.h"
#include "lib/opts.h"

#define LEASE_NAME "cronwarden-controller"

/* The process's flags (each reconciler's own are in its descriptor). */
static struct {
    char *controllers, *lease_namespace, *metrics_listen;
    long long workers;
    int leader_elect;
    double lease_duration;
    cw_cmd_common_flags common;
} o;

static const cw_opt opts[] = {
    CW_OPT_STR("controllers", "LIST", &o.controllers, "",
               "reconcilers to run: a comma list of names, `*` for all, `-name` to leave one out "
               "(names and defaults: docs/controller.md; `cronwarden controller --help` lists "
               "them)"),
    CW_OPT_NUM("workers", &o.workers, "8", 1, 64, "keys each reconciler handles in parallel"),
    CW_OPT_FLAG("leader-elect", &o.leader_elect, "true",
                "elect a leader through a Lease; only the leader reconciles (run 2+ replicas)"),
    CW_OPT_STR("leader-election-namespace", "NS", &o.lease_namespace, NULL,
               "namespace of the Lease " LEASE_NAME
               " (default: the service account's namespace in-cluster, else the context's)"),
    CW_OPT_DUR("lease-duration", &o.lease_duration, "15s",
               "how long a leader's Lease lasts without renewal; the leader renews every 2/15 of "
               "it and steps down after 2/3 of it without success"),
    CW_OPT_STR("metrics-listen", "ADDR:PORT", &o.metrics_listen, "0.0.0.0:8080",
               "plain HTTP for /healthz, /readyz, /metrics"),
};

/* The process's rows, the common ones, then every reconciler's, with their bases (the
 * reconcilers' rows are members of their configs). */
static cw_opt all[96];
static void *bases[96];

static cw_cmd_spec spec = {
    .name = "controller",
    .synopsis = "cronwarden controller [flags]",
    .summary =
        "Runs the reconcilers chosen with --controllers (the runtime side of cronwarden's rules), "
        "each with its own informers and work queue, on the elected leader only. Serves /healthz, "
        "/readyz and /metrics over plain HTTP. Every flag can also be set as CRONWARDEN_<FLAG> in "
        "the "
        "environment or as a key of --config FILE (YAML); flags win.",
    .opts = all,
    .bases = bases,
    .config_file = 1,
};

#define EXIT_CODES                                                                                 \
    "Exit codes: 0 after a clean stop (SIGTERM/SIGINT), 1 when the controller failed, 2 on a "     \
    "usage or configuration error.\nDetails: docs/controller.md."

/* The --help footer: every reconciler, whether it runs by default, and what it replaces. */
static void build_footer(char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "Controllers (--controllers):\n");
    for (size_t i = 0; cw_reconcilers[i] && used < len; i++) {
        const cw_reconciler_ops *r = cw_reconcilers[i];
        int n = snprintf(buf + used, len - used, "  %-16s %s; %s\n", r->name,
                         r->default_enabled ? "on by default" : "off by default", r->summary);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    if (used < len)
        snprintf(buf + used, len - used, "%s", EXIT_CODES);
}

/* Waits for SIGTERM/SIGINT, ticking the controller's housekeeping once a second. */
static void run_until_signal(cw_ctrl *c, sigset_t *set)
{
    struct timespec tick = {1, 0};
    for (unsigned ticks = 1;; ticks++) {
        siginfo_t si;
        int sig = sigtimedwait(set, &si, &tick);
        if (sig == SIGTERM || sig == SIGINT) {
            cw_log(CW_LOG_INFO, "shutting down",
                   CW_LS("signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"));
            return;
        }
        cw_ctrl_tick(c);
        if (ticks % CW_CMD_TRIM_TICKS == 0)
            cw_cmd_trim_heap();
    }
}

static void log_configuration(const cw_kube_config *kcfg, const cw_ctrl *c, const char *lease_ns)
{
    char enabled[256] = "";
    for (size_t i = 0; i < c->nslots; i++) {
        size_t used = strlen(enabled);
        snprintf(enabled + used, sizeof(enabled) - used, "%s%s", i ? "," : "",
                 c->slots[i].ops->name);
    }
    const cw_log_field f[] = {
        CW_LS("server", kcfg->server),      CW_LS("config", kcfg->source),
        CW_LS("enabled", enabled),          CW_LS("lease", LEASE_NAME),
        CW_LS("lease_namespace", lease_ns), CW_LS("identity", cw_leader_identity(&c->leader)),
    };
    cw_cmd_log_config(&spec, f, sizeof(f) / sizeof(f[0]));
}

int cw_cmd_controller(int argc, char **argv)
{
    int code = CW_EXIT_FAIL, rc, ctrl_ok = 0, configured = 0;
    cw_error err;
    cw_kube_config kcfg;
    cw_kube_client *kube = NULL;
    cw_ctrl ctrl;
    cw_reconciler_configs configs = {0};
    cw_log_level level;
    cw_log_format format;

    cw_error_init(&err);
    cw_kube_config_init(&kcfg);
    memset(&ctrl, 0, sizeof(ctrl));
    char footer[4096];
    build_footer(footer, sizeof(footer));
    spec.footer = footer;

    if ((rc = cw_cmd_opts(opts, sizeof(opts) / sizeof(opts[0]), &o.common, all,
                          sizeof(all) / sizeof(all[0]), &spec.nopts, &err)) == CW_OK &&
        (rc = cw_reconciler_configs_init(&configs, cw_reconcilers, &err)) == CW_OK)
        rc = cw_reconcilers_opts(cw_reconcilers, &configs, all, bases, sizeof(all) / sizeof(all[0]),
                                 &spec.nopts, &err);
    if (rc == CW_OK)
        rc = cw_opts_parse(&spec, argc, argv, NULL, stdout, &err);
    if (rc == 1) {
        code = CW_EXIT_OK;
        goto done;
    }
    if (rc == CW_OK &&
        (rc = cw_k8sname_check_flag("--leader-election-namespace", o.lease_namespace, 1, &err)) ==
            CW_OK &&
        o.lease_duration < 1)
        rc = cw_error_set(&err, CW_EUSAGE, "--lease-duration must be at least 1s");
    struct sockaddr_storage ss;
    int family;
    if (rc == CW_OK)
        rc = cw_listen_parse("--metrics-listen", o.metrics_listen, &ss, &family, &err);
    if (rc == CW_OK && (rc = cw_reconcilers_configure(cw_reconcilers, &configs, &err)) == CW_OK)
        configured = 1;
    if (rc != CW_OK) {
        code = cw_cmd_usage_error("controller", err.message);
        goto done;
    }
    cw_cmd_limit_arenas(1);
    cw_log_parse_level(o.common.log_level, &level);
    cw_log_parse_format(o.common.log_format, &format);
    cw_log_configure(level, format, stderr);

    cw_kube_load_opts lo;
    cw_kube_load_opts_init(&lo);
    lo.kubeconfig = o.common.kubeconfig && *o.common.kubeconfig ? o.common.kubeconfig : NULL;
    lo.context = o.common.context && *o.common.context ? o.common.context : NULL;
    if (cw_kube_config_load(&kcfg, &lo, &err) != CW_OK ||
        cw_kube_client_new(&kcfg, NULL, &kube, &err) != CW_OK) {
        fprintf(stderr, "cronwarden controller: %s\n", err.message);
        code = CW_EXIT_USAGE;
        goto done;
    }
    const char *lease_ns =
        o.lease_namespace && *o.lease_namespace ? o.lease_namespace : kcfg.namespace;
    cw_ctrl_config cc = {
        .kube = kube,
        .controllers = o.controllers,
        .reconcilers = cw_reconcilers,
        .configs = configs.cfgs,
        .workers = (size_t)o.workers,
        .leader_elect = o.leader_elect,
        .lease_namespace = lease_ns,
        .lease_name = LEASE_NAME,
        .lease_duration = o.lease_duration,
        .renew_deadline = o.lease_duration * 2 / 3,
        .retry_period = o.lease_duration * 2 / 15,
        .metrics_listen = o.metrics_listen,
    };
    rc = cw_ctrl_init(&ctrl, &cc, &err);
    ctrl_ok = 1; /* cw_ctrl_free undoes a partial init too */
    if (rc == CW_EINVAL) {
        code = cw_cmd_usage_error("controller", err.message);
        goto done;
    }
    if (rc != CW_OK)
        goto fail;
    log_configuration(&kcfg, &ctrl, lease_ns);

    /* Signals are taken synchronously by the main loop; every thread inherits the mask. */
    sigset_t set;
    cw_cmd_block_signals(&set);

    if ((rc = cw_ctrl_start(&ctrl, &err)) != CW_OK)
        goto fail;
    cw_log(CW_LOG_INFO, "controller running", CW_LI("metrics_port", ctrl.health.port));
    run_until_signal(&ctrl, &set);
    cw_ctrl_stop(&ctrl);
    cw_log(CW_LOG_INFO, "stopped");
    code = CW_EXIT_OK;
    goto done;
fail:
    cw_log(CW_LOG_ERROR, "controller failed", CW_LS("error", err.message));
    code = CW_EXIT_FAIL;
done:
    if (ctrl_ok)
        cw_ctrl_free(&ctrl);
    if (configured)
        cw_reconcilers_unconfigure(cw_reconcilers, &configs);
    cw_kube_client_free(kube);
    cw_kube_config_free(&kcfg);
    cw_opts_free(&spec); /* the values in configs, which go after them */
    cw_reconciler_configs_free(&configs);
    return code;
}
