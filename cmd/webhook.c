/* cronwarden webhook: flags → configuration, certificates, the server, and the signal loop that
 * reloads certificates and drains on SIGTERM/SIGINT. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "longhorn/version.h"
#include "defaults/opts.h"
#include "defaults/policy.h"
#include "longhorn/recurringjob.h"
#include "lib/log.h"
#include "lib/opts.h"
#include "cron/tz.h"
#include "webhook/certstore.h"
#include "webhook/selfsigned.h"
#include "webhook/server.h"
#include "webhook/tlsprio.h"

/* Process configuration: the options table writes here. */
static struct {
    char *listen, *cert_file, *key_file, *default_group, *tls_min_version, *longhorn_version;
    long long threads, max_body, max_retain, max_connections;
    double grace, idle_timeout, reload_interval, cert_check_interval, read_header_timeout,
        request_timeout;
    cw_strlist tls_cipher_suites;
    int skip_immediately, self_signed;
    char *cert_secret, *service;
    cw_strlist webhook_configs, dns_names, ip_addresses;
    cw_cmd_common_flags common;
} o;

static const cw_opt opts[] = {
    {.name = "listen",
     .type = CW_OPT_STRING,
     .metavar = "ADDR:PORT",
     .help = "address to serve HTTPS on",
     .target = &o.listen,
     .def = "0.0.0.0:9443"},
    {.name = "threads",
     .type = CW_OPT_INT,
     .metavar = "N",
     .help = "worker threads (0: one per core)",
     .target = &o.threads,
     .def = "0",
     .max = 256},
    {.name = "tls-cert-file",
     .type = CW_OPT_STRING,
     .metavar = "PATH",
     .help = "serving certificate (PEM, leaf first); reloaded when it changes",
     .target = &o.cert_file},
    {.name = "tls-private-key-file",
     .type = CW_OPT_STRING,
     .metavar = "PATH",
     .help = "private key of --tls-cert-file (PEM)",
     .target = &o.key_file},
    {.name = "tls-reload-interval",
     .type = CW_OPT_DURATION,
     .metavar = "DURATION",
     .help = "how often the certificate files are checked for changes",
     .target = &o.reload_interval,
     .def = "2s"},
    {.name = "max-body-bytes",
     .type = CW_OPT_INT,
     .metavar = "N",
     .help = "larger request bodies are refused with 413",
     .target = &o.max_body,
     .def = "8388608",
     .min = 1024,
     .max = 1LL << 30},
    {.name = "max-connections",
     .type = CW_OPT_INT,
     .metavar = "N",
     .help = "concurrent connections",
     .target = &o.max_connections,
     .def = "1000",
     .min = 1,
     .max = 100000},
    {.name = "idle-timeout",
     .type = CW_OPT_DURATION,
     .metavar = "DURATION",
     .help = "close connections idle this long",
     .target = &o.idle_timeout,
     .def = "120s"},
    {.name = "read-header-timeout",
     .type = CW_OPT_DURATION,
     .metavar = "DURATION",
     .help = "close a connection whose request headers take longer than this (from accept, or "
             "after the idle timeout between keep-alive requests)",
     .target = &o.read_header_timeout,
     .def = "10s"},
    {.name = "request-timeout",
     .type = CW_OPT_DURATION,
     .metavar = "DURATION",
     .help = "close a connection whose whole request (headers and body) takes longer than this",
     .target = &o.request_timeout,
     .def = "30s"},
    {.name = "tls-cipher-suites",
     .type = CW_OPT_LIST,
     .metavar = "SUITE",
     .help = "TLS 1.2 suites, IANA names as kube-apiserver takes them (default: every ECDHE/DHE "
             "AEAD suite); repeatable or comma-separated",
     .target = &o.tls_cipher_suites},
    {.name = "tls-min-version",
     .type = CW_OPT_ENUM,
     .metavar = "VERSION",
     .help = "VersionTLS12 or VersionTLS13",
     .target = &o.tls_min_version,
     .def = "VersionTLS12",
     .choices = "VersionTLS12|VersionTLS13"},
    {.name = "shutdown-grace",
     .type = CW_OPT_DURATION,
     .metavar = "DURATION",
     .help = "on SIGTERM/SIGINT, time to finish in-flight requests",
     .target = &o.grace,
     .def = "15s"},
    CW_POLICY_OPT_MAX_RETAIN(CW_OPT_TO(&o.max_retain)),
    CW_POLICY_OPT_DEFAULT_GROUP("", CW_OPT_TO(&o.default_group)),
    CW_POLICY_OPT_SKIP_IMMEDIATELY("the value made explicit on Schedules",
                                   CW_OPT_TO(&o.skip_immediately)),
    CW_POLICY_OPT_LONGHORN_VERSION(
        "the Longhorn the cluster runs, 1.<minor> or v1.<minor>.<patch>: RecurringJob tasks its "
        "manager does not have are refused (Longhorn 1.2 runs every task but backup as a "
        "snapshot); auto: not known, every task of the newest Longhorn is admitted",
        CW_OPT_TO(&o.longhorn_version)),
    {.name = "self-signed",
     .type = CW_OPT_BOOL,
     .help = "make and rotate a CA and serving certificate kept in --cert-secret",
     .target = &o.self_signed,
     .def = "false"},
    {.name = "cert-secret",
     .type = CW_OPT_STRING,
     .metavar = "NS/NAME",
     .help = "kubernetes.io/tls Secret for --self-signed",
     .target = &o.cert_secret},
    {.name = "service",
     .type = CW_OPT_STRING,
     .metavar = "NS/NAME",
     .help = "the webhook's Service (certificate DNS names)",
     .target = &o.service},
    {.name = "webhook-config",
     .type = CW_OPT_LIST,
     .metavar = "NAME",
     .help = "Mutating/ValidatingWebhookConfiguration whose caBundle is kept current",
     .target = &o.webhook_configs},
    {.name = "dns-name",
     .type = CW_OPT_LIST,
     .metavar = "NAME",
     .help = "extra DNS name for the self-signed certificate",
     .target = &o.dns_names},
    {.name = "ip-address",
     .type = CW_OPT_LIST,
     .metavar = "IP",
     .help = "extra IP address for the self-signed certificate",
     .target = &o.ip_addresses},
    {.name = "cert-check-interval",
     .type = CW_OPT_DURATION,
     .metavar = "DURATION",
     .help =
         "--self-signed: how often the Secret is re-read and the certificate checked for renewal",
     .target = &o.cert_check_interval,
     .def = "1h"},
};

static cw_opt all[sizeof(opts) / sizeof(opts[0]) + 8];

static cw_cmd_spec spec = {
    .name = "webhook",
    .synopsis = "cronwarden webhook [flags]",
    .summary =
        "Serves the mutating (POST /mutate) and validating (POST /validate) admission webhook for "
        "Longhorn RecurringJobs and Volumes and Velero Schedules, plus /healthz, /readyz and "
        "/metrics. Every flag can also be set as CRONWARDEN_<FLAG> in the environment or as a key "
        "of "
        "--config FILE (YAML); flags win.",
    .opts = all,
    .footer = "Certificates: either --tls-cert-file and --tls-private-key-file (reloaded when they "
              "change), "
              "or --self-signed --cert-secret NS/NAME --service NS/NAME --webhook-config NAME...\n"
              "Exit codes: 0 after a clean shutdown, 1 when serving failed, 2 on a usage error.\n"
              "Details: docs/webhook.md.",
    .config_file = 1,
};

static void log_configuration(void)
{
    char *configs = cw_strlist_join(&o.webhook_configs, ",");
    cw_log(CW_LOG_INFO, "configuration", CW_LS("listen", o.listen), CW_LI("threads", o.threads),
           CW_LS("tls_cert_file", o.cert_file ? o.cert_file : ""),
           CW_LS("tls_private_key_file", o.key_file ? o.key_file : ""),
           CW_LD("tls_reload_interval_s", o.reload_interval), CW_LI("max_body_bytes", o.max_body),
           CW_LI("max_connections", o.max_connections), CW_LD("idle_timeout_s", o.idle_timeout),
           CW_LD("shutdown_grace_s", o.grace), CW_LI("max_retain", o.max_retain),
           CW_LS("default_group", o.default_group ? o.default_group : ""),
           CW_LB("schedule_skip_immediately", o.skip_immediately),
           CW_LS("longhorn_version", o.longhorn_version ? o.longhorn_version : ""),
           CW_LS("log_level", o.common.log_level), CW_LS("log_format", o.common.log_format),
           CW_LB("self_signed", o.self_signed),
           CW_LS("cert_secret", o.cert_secret ? o.cert_secret : ""),
           CW_LS("service", o.service ? o.service : ""),
           CW_LS("webhook_configs", configs ? configs : ""));
    free(configs);
}

static int check_flags(cw_error *err)
{
    int rc = cw_recurringjob_check_group_flag("--default-group", o.default_group, err);
    if (rc != CW_OK)
        return rc;
    if (o.self_signed) {
        if (o.cert_file || o.key_file)
            return cw_error_set(err, CW_EUSAGE,
                                "--self-signed and --tls-cert-file/--tls-private-key-file "
                                "exclude each other");
        if (!o.cert_secret || !o.service)
            return cw_error_set(err, CW_EUSAGE,
                                "--self-signed needs --cert-secret NS/NAME and --service NS/NAME");
        return CW_OK;
    }
    if (!o.cert_file || !o.key_file)
        return cw_error_set(err, CW_EUSAGE,
                            "give --tls-cert-file and --tls-private-key-file, or --self-signed");
    if (o.webhook_configs.len || o.cert_secret)
        return cw_error_set(err, CW_EUSAGE,
                            "--cert-secret and --webhook-config only apply with --self-signed");
    return CW_OK;
}

/* Waits for SIGTERM/SIGINT, checking the certificate files in between (the self-signed refresh
 * has its own thread). */
static void serve_until_signal(cw_webhook_server *srv, int watch_files, sigset_t *set)
{
    struct timespec tick = {1, 0}, now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double next_reload = (double)now.tv_sec + o.reload_interval;
    for (unsigned ticks = 1;; ticks++) {
        siginfo_t si;
        int sig = sigtimedwait(set, &si, &tick);
        if (sig == SIGTERM || sig == SIGINT) {
            cw_log(CW_LOG_INFO, "shutting down",
                   CW_LS("signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"),
                   CW_LD("grace_s", o.grace));
            return;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (watch_files && (double)now.tv_sec >= next_reload) {
            cw_webhook_server_reload_certs(srv);
            next_reload = (double)now.tv_sec + o.reload_interval;
        }
        if (ticks % CW_CMD_TRIM_TICKS == 0)
            cw_cmd_trim_heap();
    }
}

int cw_cmd_webhook(int argc, char **argv)
{
    int code = CW_EXIT_FAIL, rc;
    cw_error err;
    cw_policy_config policy;
    cw_tzdb tzdb;
    cw_certs_store certs;
    cw_webhook_server srv;
    cw_certs_selfsigned ss;
    cw_metrics metrics;
    int policy_ok = 0, ss_ok = 0;
    cw_log_level level;
    cw_log_format format;
    char *priorities = NULL;
    cw_strlist suites;

    cw_error_init(&err);
    cw_strlist_init(&suites);
    cw_strlist_init(&o.tls_cipher_suites);
    cw_strlist_init(&o.webhook_configs);
    cw_strlist_init(&o.dns_names);
    cw_strlist_init(&o.ip_addresses);
    cw_certs_store_init(&certs);
    cw_webhook_server_init(&srv);
    cw_metrics_init(&metrics);
    cw_certs_selfsigned_init(&ss);

    rc = cw_cmd_opts(opts, sizeof(opts) / sizeof(opts[0]), &o.common, all,
                     sizeof(all) / sizeof(all[0]), &spec.nopts, &err);
    if (rc == CW_OK)
        rc = cw_opts_parse(&spec, argc, argv, NULL, stdout, &err);
    if (rc == 1) {
        code = CW_EXIT_OK;
        goto done;
    }
    if (rc != CW_OK || (rc = check_flags(&err)) != CW_OK) {
        code = cw_cmd_usage_error("webhook", err.message);
        goto done;
    }
    /* kube-apiserver's form: one comma-separated value, or the flag repeated */
    for (size_t i = 0; i < o.tls_cipher_suites.len; i++) {
        char *copy = strdup(o.tls_cipher_suites.items[i]), *save = NULL;
        for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save))
            if (cw_strlist_add(&suites, t) != CW_OK)
                break;
        free(copy);
    }
    if (cw_strlist_error(&suites) != CW_OK ||
        cw_webhook_tls_priorities(&suites, o.tls_min_version, &priorities, &err) != CW_OK) {
        code = cw_cmd_usage_error("webhook", err.message);
        goto done;
    }
    cw_log_parse_level(o.common.log_level, &level);
    cw_log_parse_format(o.common.log_format, &format);
    cw_log_configure(level, format, stderr);

    if ((rc = cw_policy_config_init_tzdb(&policy, &tzdb, &err)) != CW_OK)
        goto fail;
    policy_ok = 1;
    policy.max_retain = (int)o.max_retain;
    policy.schedule_skip_immediately = o.skip_immediately;
    cw_lh_identity lh;
    if ((rc = cw_lh_parse_version_flag(o.longhorn_version, &lh, &err)) != CW_OK ||
        (rc = cw_policy_config_set_default_group(&policy, o.default_group, &err)) != CW_OK ||
        (rc = cw_policy_config_validate(&policy, &err)) != CW_OK) {
        code = cw_cmd_usage_error("webhook", err.message);
        goto done;
    }
    policy.longhorn_minor = lh.minor;
    policy.longhorn_patch = lh.patch;
    log_configuration();

    /* Signals are taken synchronously by the main loop; server threads inherit the mask. */
    sigset_t set;
    cw_cmd_block_signals(&set);

    if (o.self_signed) {
        cw_certs_selfsigned_opts so = {
            .kubeconfig = o.common.kubeconfig,
            .context = o.common.context,
            .secret = o.cert_secret,
            .service = o.service,
            .webhook_configs = &o.webhook_configs,
            .dns_names = &o.dns_names,
            .ip_addresses = &o.ip_addresses,
            .store = &certs,
        };
        if ((rc = cw_certs_selfsigned_start(&ss, &so, &err)) != CW_OK)
            goto fail;
        ss_ok = 1;
    } else if ((rc = cw_certs_store_watch(&certs, o.cert_file, o.key_file, &err)) != CW_OK) {
        goto fail;
    }

    cw_webhook_config cfg = {
        .listen = o.listen,
        .threads = (unsigned)o.threads,
        .max_body_bytes = (size_t)o.max_body,
        .idle_timeout = o.idle_timeout < 1 ? 1 : (unsigned)o.idle_timeout,
        .read_header_timeout = o.read_header_timeout < 1 ? 1 : (unsigned)o.read_header_timeout,
        .request_timeout = o.request_timeout < 1 ? 1 : (unsigned)o.request_timeout,
        .tls_priorities = priorities,
        .max_connections = (unsigned)o.max_connections,
        .certs = &certs,
        .policy = &policy,
        .metrics = &metrics,
    };
    if ((rc = cw_webhook_server_start(&srv, &cfg, &err)) == CW_EINVAL) {
        code = cw_cmd_usage_error("webhook", err.message); /* a --listen that does not parse */
        goto done;
    }
    if (rc != CW_OK)
        goto fail;
    cw_log(CW_LOG_INFO, "serving", CW_LS("listen", o.listen), CW_LI("port", srv.port),
           CW_LI("threads", srv.cfg.threads));

    if (ss_ok && (rc = cw_certs_selfsigned_run(&ss, o.cert_check_interval, &err)) != CW_OK)
        goto fail;
    serve_until_signal(&srv, !ss_ok, &set);
    rc = cw_webhook_server_drain(&srv, o.grace);
    if (ss_ok && cw_certs_selfsigned_stop(&ss, 1) != CW_OK) {
        /* The refresher is stuck in an API call and still uses the store and the client: do
         * not free them under it. */
        cw_log(CW_LOG_WARN, "the certificate refresher is still waiting for the API; exiting");
        cw_webhook_server_free(&srv);
        fflush(NULL);
        _exit(CW_EXIT_OK);
    }
    cw_log(CW_LOG_INFO, "stopped", CW_LB("drained", rc == CW_OK));
    code = CW_EXIT_OK;
    goto done;
fail:
    cw_log(CW_LOG_ERROR, "webhook failed", CW_LS("error", err.message));
    code = CW_EXIT_FAIL;
done:
    cw_webhook_server_free(&srv);
    cw_certs_selfsigned_free(&ss);
    cw_certs_store_free(&certs);
    cw_metrics_free(&metrics);
    if (policy_ok)
        cw_policy_config_free_tzdb(&policy, &tzdb);
    cw_opts_free(&spec); /* strings and lists */
    cw_strlist_free(&suites);
    free(priorities);
    return code;
}
