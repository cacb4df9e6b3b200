/* Subcommand entry points; each returns the process exit code. */
#ifndef CW_CMD_H
#define CW_CMD_H

#include <signal.h>

#include "defaults/policy.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/opts.h"
#include "cron/tz.h"

#define CW_EXIT_OK    0
#define CW_EXIT_FAIL  1
#define CW_EXIT_USAGE 2

int cw_cmd_cron(int argc, char **argv);
int cw_cmd_cron_audit(int argc, char **argv);
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

/* Option rows every long-running command has (cmd/common.c): --kubeconfig, --context,
 * --log-level, --log-format, into cw_cmd_common. */
typedef struct cw_cmd_common_flags {
    char *kubeconfig, *context, *log_level, *log_format;
} cw_cmd_common_flags;
extern cw_cmd_common_flags cw_cmd_common;
extern const cw_opt cw_cmd_common_opts[];
extern const size_t cw_cmd_common_nopts;
/* Logs "configuration" once: the extra fields, then every flag of spec by its name with '_'
 * (durations in seconds, "_s"). */
void cw_cmd_log_config(const cw_cmd_spec *spec, const cw_log_field *extra, size_t nextra);
/* The command's table: its own rows then the common ones, into out (room for cap). */
int cw_cmd_opts(const cw_opt *own, size_t nown, cw_opt *out, size_t cap, size_t *n,
                cw_error *err) CW_MUST_CHECK;

#endif
