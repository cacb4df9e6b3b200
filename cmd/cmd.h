/* Subcommand entry points; each returns the process exit code. */
#ifndef CW_CMD_H
#define CW_CMD_H

#include <signal.h>

#include <json-c/json.h>

#include "defaults/kinds.h"
#include "defaults/policy.h"
#include "kube/client.h"
#include "kube/config.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/opts.h"
#include "lib/strlist.h"
#include "cron/tz.h"

#define CW_EXIT_OK    0
#define CW_EXIT_FAIL  1
#define CW_EXIT_USAGE 2

/* A row of a command table, from which both the usage text and the dispatch are made. */
typedef struct cw_cmd_entry {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the name */
    const char *synopsis;              /* its line in the parent's usage; NULL: none */
    const char *summary;               /* its line in a listing of commands; NULL: the parent's
                                          line covers it */
    const struct cw_cmd_entry *sub;    /* its subcommands (a listing shows those with a summary) */
} cw_cmd_entry;
/* Tables end with a row without a name. */

/* The row of t named name, or NULL. */
const cw_cmd_entry *cw_cmd_find(const cw_cmd_entry *t, const char *name);
/* "--help", "-h" or "help". */
int cw_cmd_is_help(const char *arg);

/* cron's subcommands (cmd/cron.c). */
extern const cw_cmd_entry cw_cmd_cron_commands[];
#define CW_CMD_CRON_AUDIT_SYNOPSIS  "cronwarden cron audit [--from-file PATH]... [flags]"
#define CW_CMD_CRON_STATUS_SYNOPSIS "cronwarden cron status [--from-file PATH]... [flags]"

int cw_cmd_cron(int argc, char **argv);
int cw_cmd_cron_audit(int argc, char **argv);
int cw_cmd_cron_status(int argc, char **argv);
int cw_cmd_migrate(int argc, char **argv);
int cw_cmd_webhook(int argc, char **argv);
int cw_cmd_controller(int argc, char **argv);
int cw_cmd_version(int argc, char **argv);

/* Prints "cronwarden <cmd>: <msg>" and a hint to use --help, returns CW_EXIT_USAGE. */
int cw_cmd_usage_error(const char *cmd, const char *msg);

/* Blocks SIGTERM and SIGINT in this thread and in every thread it starts later (the servers
 * take them synchronously with sigtimedwait on *set), and ignores SIGPIPE. */
void cw_cmd_block_signals(sigset_t *set);

/* How often (in the 1 s ticks of the servers' main loops) cw_cmd_trim_heap runs. */
#define CW_CMD_TRIM_TICKS 30

/* Hands freed heap pages back to the kernel. glibc keeps what the server threads' arenas once
 * held (TLS sessions, request bodies) mapped after it is freed, so without this RSS follows the
 * high-water mark of fragmentation rather than live memory: a long-running server's RSS then
 * steps up after load peaks and never comes down. */
void cw_cmd_trim_heap(void);
/* glibc gives every thread that allocates its own arena (up to 8 per core); a long-running server
 * whose objects are made on one thread (an informer) and copied on others (workers) then keeps
 * each arena's high-water mark. n arenas bound that (bench/README.md, the controller's figures). */
void cw_cmd_limit_arenas(int n);

/* The flags several commands share, declared once (the rows below): --kubeconfig and --context
 * (the cluster, by kubectl's rules: kube/config.h) and --log-level and --log-format. Each command
 * keeps them in its own configuration; none is a global. */
typedef struct cw_cmd_common_flags {
    char *kubeconfig, *context, *log_level, *log_format;
} cw_cmd_common_flags;

/* scope_: a literal the help starts with ("online: ", "live: " or ""); no_env_: 1 where the
 * command reads flags only. */
#define CW_CMD_OPT_KUBECONFIG(scope_, tgt, no_env_)                                                \
    {                                                                                              \
        .name = "kubeconfig", .type = CW_OPT_STRING, .metavar = "FILE",                            \
        .help = scope_ "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)",       \
        .target = (tgt), .no_env = (no_env_)                                                       \
    }
#define CW_CMD_OPT_CONTEXT(scope_, tgt, no_env_)                                                   \
    {                                                                                              \
        .name = "context", .type = CW_OPT_STRING, .metavar = "NAME",                               \
        .help = scope_ "kubeconfig context", .target = (tgt), .no_env = (no_env_)                  \
    }
#define CW_CMD_OPT_LOG_LEVEL(tgt)                                                                  \
    {                                                                                              \
        .name = "log-level", .type = CW_OPT_ENUM, .metavar = "LEVEL",                              \
        .help = "debug, info, warn or error", .target = (tgt), .def = "info",                      \
        .choices = "debug|info|warn|error"                                                         \
    }
#define CW_CMD_OPT_LOG_FORMAT(tgt)                                                                 \
    {                                                                                              \
        .name = "log-format", .type = CW_OPT_ENUM, .metavar = "FORMAT",                            \
        .help = "text (logfmt) or json", .target = (tgt), .def = "text", .choices = "text|json"    \
    }

/* Configures the log from f's --log-level and --log-format (to stderr). */
void cw_cmd_log_configure(const cw_cmd_common_flags *f);
/* Logs "configuration" once: the extra fields, then every flag of spec by its name with '_'
 * (durations in seconds, "_s"). */
void cw_cmd_log_config(const cw_cmd_spec *spec, const cw_log_field *extra, size_t nextra);
/* A long-running command's table: its own rows, then the four common ones into *common, into
 * out (room for cap). */
int cw_cmd_opts(const cw_opt *own, size_t nown, cw_cmd_common_flags *common, cw_opt *out,
                size_t cap, size_t *n, cw_error *err) CW_MUST_CHECK;

/* Rows of the cron subcommands, which take flags only (no CRONWARDEN_* environment, no config
 * file): the manifests to read or the cluster, and the output format. */
#define CW_CMD_OPT_FROM_FILE(tgt, help_)                                                           \
    {                                                                                              \
        .name = "from-file", .short_name = 'f', .type = CW_OPT_LIST, .metavar = "PATH",            \
        .help = (help_), .target = (tgt), .no_env = 1                                              \
    }
#define CW_CMD_OPT_MAX_INPUT_BYTES(tgt)                                                            \
    {                                                                                              \
        .name = "max-input-bytes", .type = CW_OPT_INT, .metavar = "N",                             \
        .help = "refuse more manifests than N bytes in all", .target = (tgt), .def = "1073741824", \
        .min = 1, .max = 1LL << 50, .no_env = 1                                                    \
    }
#define CW_CMD_OPT_LIVE_NAMESPACE(name_, short_, def_, help_, tgt)                                 \
    {                                                                                              \
        .name = (name_), .short_name = (short_), .type = CW_OPT_STRING, .metavar = "NS",           \
        .help = (help_), .target = (tgt), .def = (def_), .no_env = 1                               \
    }
#define CW_CMD_OPT_REPORT_DEFAULT_GROUP(tgt)                                                       \
    {                                                                                              \
        .name = "default-group", .type = CW_OPT_STRING, .metavar = "NAME",                         \
        .help = "the group of volumes without job labels (\"\": none)", .target = (tgt),           \
        .def = "default", .no_env = 1                                                              \
    }
#define CW_CMD_OPT_TEXT_JSON(tgt)                                                                  \
    {                                                                                              \
        .name = "output", .short_name = 'o', .type = CW_OPT_ENUM, .metavar = "FORMAT",             \
        .help = "text or json", .target = (tgt), .def = "text", .choices = "text|json",            \
        .no_env = 1                                                                                \
    }

/* Objects for the read-only reports (cron audit, cron status), one at a time: obj is borrowed,
 * source says where it came from ("file: document 2, items[3]", "live"). */
typedef int (*cw_cmd_object_fn)(void *ud, json_object *obj, const char *source, cw_error *err);
/* Manifests: files, directories (recursive) or "-", at most max_bytes in all (migrate's loaders;
 * Lists flattened); drop: member paths the report never reads (cw_load_file_lean, kube/manifest.h),
 * or NULL. */
int cw_cmd_feed_files(const cw_strlist *paths, long long max_bytes, const char *const *drop,
                      cw_cmd_object_fn fn, void *ud, cw_error *err) CW_MUST_CHECK;
/* What to LIST for a report: group/resource in ns (NULL: all namespaces), with an optional
 * label selector. */
typedef struct cw_cmd_live_source {
    const char *group, *resource, *ns, *selector;
} cw_cmd_live_source;
/* The cluster of --kubeconfig/--context (kubectl's rules), read with a paged LIST per source in
 * order, each item given its List's apiVersion and kind; a group or resource the cluster does
 * not serve is skipped (logged at info level). */
int cw_cmd_feed_live(const char *kubeconfig, const char *context, const cw_cmd_live_source *src,
                     size_t n, cw_cmd_object_fn fn, void *ud, cw_error *err) CW_MUST_CHECK;
/* The sources of the kinds reader (a CW_READ_*) reads (defaults/kinds.h), in the table's order,
 * into out: a kind of Longhorn's or batch in ns, of Velero's in velero_ns (NULL: all namespaces).
 * Returns how many. */
size_t cw_cmd_kind_sources(unsigned reader, const char *ns, const char *velero_ns,
                           cw_cmd_live_source out[CW_KIND_COUNT]);

#endif
