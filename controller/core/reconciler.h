/* What a reconciler is: a descriptor, one per kind (controller/<kind>_apply.c), listed in
 * controller/reconcilers.c. The machinery turns each descriptor `--controllers` enables into a
 * running reconciler (controller/core/shell.h) with its own work queue, informers and workers; a
 * reconciler that is not enabled is never created and watches nothing.
 *
 * A descriptor says, top to bottom:
 *   who it is       name, summary, whether it runs by default, what its keys name;
 *   its flags       option rows (lib/opts.h) whose values are members of its config (or of the
 *                   flags several reconcilers read), and what config_init derives from them once
 *                   at start-up;
 *   what it reads   its informers (a table: resource, scope, selectors, transform, index,
 *                   handler). A row is a sink of the process's one informer for its resource,
 *                   namespace and selectors (controller/core/informer.h), shared with every
 *                   reconciler that reads the same: listed and watched once, each change handed
 *                   to every row's handler;
 *   what it does    one reconcile per key: read the caches, call the pure decision, write through
 *                   the shell's write helpers, say what came of it as a verdict
 *                   (controller/core/verdict.h). The shell maps a verdict to the work queue and
 *                   the metrics, and a failure that says none from the API's answer. */
#ifndef CW_CTRL_RECONCILER_H
#define CW_CTRL_RECONCILER_H

#include <stddef.h>

#include "controller/core/informer.h"
#include "controller/core/verdict.h"
#include "controller/core/workers.h"
#include "lib/error.h"
#include "lib/opts.h"

typedef struct cw_shell cw_shell;

/* The flags several reconcilers read: one struct (controller/flags.h; cw_ctrl_flags_size bytes)
 * that the controller command owns and every config_init is handed. The core makes it and gives
 * it to the option rows, and never reads it. */
typedef struct cw_ctrl_flags cw_ctrl_flags;
extern const size_t cw_ctrl_flags_size;

/* The bases of a reconciler's option rows (lib/opts.h CW_OPT_IN): its own flags are members of its
 * config (CW_OPT_STR_AT and the other _AT rows are there), the shared ones of cw_ctrl_flags. */
enum { CW_RECONCILER_AT_CONFIG = 1, CW_RECONCILER_AT_SHARED = 2 };

/* What every reconciler's config begins with (first in the struct its config_init fills). */
typedef struct cw_reconciler_config {
    const char *home;  /* its namespace, where CW_SHELL_HOME informers watch; NULL, "": every one */
    const char *aside; /* a second namespace, where CW_SHELL_ASIDE informers watch (a reconciler
                          reading two projects: Longhorn's and Velero's); NULL, "": every one */
} cw_reconciler_config;

/* Where an informer watches. */
typedef enum {
    CW_SHELL_HOME,  /* the reconciler's namespace (its config's home) */
    CW_SHELL_ALL,   /* every namespace, or a cluster-scoped resource */
    CW_SHELL_ASIDE, /* the config's second namespace (aside) */
} cw_shell_scope;

/* One informer row of a reconciler. Every callback's ud is the cw_shell (keep's transform: the
 * paths). Rows of one resource, namespace and selectors share one informer (its metrics carry
 * those, not the row's name); what each row keeps is its own: rows with the same keep list (the
 * same array), or the same transform, and the same index share one cache, the others get a cache
 * each off the same LIST and WATCH. */
typedef struct cw_informer_def {
    const char *name; /* logs (the first row of an informer names it) */
    const char *group, *resource;
    /* The version: given ("v1"), or NULL: discovered at creation (the group's preferred version
     * that serves the resource; none: the reconciler fails to start, naming the resource). */
    const char *version;
    int version_of; /* > 0: the version discovered for informer version_of - 1 (a resource served
                       beside it, e.g. Longhorn's Settings beside its RecurringJobs) */
    cw_shell_scope scope;
    /* 1: a resource the cluster may not have (Velero, Longhorn not installed) and the reconciler
     * does without: when discovery finds no version, the informer stays empty and is not started
     * (one log line; installed later: read from the next start), and a LIST answered 404 does not
     * make the reconciler unready. 0: the reconciler needs it (not served: it fails to start, or
     * /readyz names it). */
    int optional;
    const char *label_selector, *field_selector; /* NULL: everything */
    const char *const *keep;            /* what the cache keeps: these paths (cw_json_keep) */
    cw_informer_transform_fn transform; /* or this; neither: the whole object */
    /* Members the transform keeps as text, up to a size: values at these paths reach it as a
     * string of their text, or, longer than prune_over bytes, as their length; never parsed (a
     * tenant's spec). Shared with a row that prunes otherwise, the informer parses everything. */
    const char *const *prune;
    size_t prune_over;
    long page_size; /* LIST page size; 0: the process's (a kind whose objects may be large) */
    cw_ctrl_index_fn index;         /* NULL: no secondary index */
    cw_informer_handler_fn handler; /* NULL: the changed object's key is queued */
    /* 1: store-less, for a reconciler that keeps its own model: no cache (keep, transform and
     * index unused; cw_shell_store is NULL), the handler gets every object whole as it came
     * (old NULL; obj NULL on DELETE), valid during the call. */
    int storeless;
} cw_informer_def;

typedef struct cw_reconciler_ops {
    /* ---- who it is ---- */
    const char *name; /* `--controllers` name, logs, the metrics' controller label */
    const char
        *summary; /* one line: what it keeps right and which upstream controller it replaces */
    int default_enabled; /* 1: runs when --controllers is not given (it fights no upstream
                            controller) */
    const char *object;  /* what a key names, for messages ("RecurringJob", "backup queue") */
    const char *verbs;   /* its write verbs, for the writes metric's help */

    /* ---- its flags ---- */
    /* Option rows (lib/opts.h), each a member of its config (CW_RECONCILER_AT_CONFIG) or of the
     * shared flags (CW_RECONCILER_AT_SHARED). A flag two reconcilers read is the same row (name
     * and member of cw_ctrl_flags) in both; cmd/controller.c collects every reconciler's rows,
     * each flag once. */
    const cw_opt *opts;
    size_t nopts;
    /* Its config: config_size zeroed bytes (a struct beginning with a cw_reconciler_config) that
     * the flags are parsed into; config_init then derives and checks what the reconciler reads
     * from them and from the shared flags, once at start-up for every reconciler (enabled or
     * not, so a bad flag is a usage error whatever runs): CW_EUSAGE or CW_EINVAL naming the flag.
     * config_fini (may be NULL) frees what init made, also after a failed init. */
    size_t config_size;
    int (*config_init)(void *cfg, const cw_ctrl_flags *shared, cw_error *err);
    void (*config_fini)(void *cfg);

    /* ---- what it reads ---- */
    const cw_informer_def *informers; /* started in this order, stopped and freed in reverse
                                           (a handler may read an earlier informer's cache) */
    size_t ninformers;

    /* ---- what it does ---- */
    /* Its own state besides the informers (NULL: none), made after them, freed after them. */
    int (*init)(cw_shell *s, void **state, cw_error *err);
    void (*fini)(void *state);
    int (*enqueue_all)(cw_shell *s); /* NULL: every key of informers[0] */
    /* One key: read, decide, write through the shell (controller/core/shell.h), and say what
     * came of it through the cw_verdict_* helpers (v starts as done, "ok"): done or requeue at a
     * time with its outcome; a failure it can judge, backoff or wait. Return the API's answer as
     * it came: a failure without a verdict of failure is the shell's to judge (409 decided again,
     * 404 gone, the rest backoff). */
    int (*reconcile)(cw_shell *s, const char *key, cw_verdict *v, cw_error *err);
    void (*tick)(cw_shell *s); /* NULL: none; housekeeping about once a second, leader only */
    int conflict_ms;           /* after a 409, decide again this soon (0: 1000) */
} cw_reconciler_ops;

/* Shorthands for the descriptor's common parts: an informer's resource (version NULL:
 * discovered); a reconciler's names; its tables with their counts; its config's type and
 * functions; its state's. */
#define CW_INFORMER_RESOURCE(name_, group_, version_, resource_)                                   \
    .name = (name_), .group = (group_), .version = (version_), .resource = (resource_)
#define CW_RECONCILER_NAMED(name_, object_, verbs_)                                                \
    .name = (name_), .object = (object_), .verbs = (verbs_)
#define CW_RECONCILER_STATE(init_, fini_) .init = (init_), .fini = (fini_)
#define CW_RECONCILER_TABLES(opts_, informers_)                                                    \
    .opts = (opts_), .nopts = sizeof(opts_) / sizeof((opts_)[0]), .informers = (informers_),       \
    .ninformers = sizeof(informers_) / sizeof((informers_)[0])
#define CW_RECONCILER_CONFIG(type_, init_, fini_)                                                  \
    .config_size = sizeof(type_), .config_init = (init_), .config_fini = (fini_)

/* Every reconciler this binary has, NULL-terminated (controller/reconcilers.c). */
extern const cw_reconciler_ops *const cw_reconcilers[];

#define CW_RECONCILERS_MAX 16

/* The reconcilers of `all` (NULL-terminated; the process passes cw_reconcilers) that `spec`
 * selects, in their order, into out (room for
 * CW_RECONCILERS_MAX), *n set to their number. spec is kube-controller-manager's form: a comma
 * list of names, `*` for all of them, `-name` to leave one out; NULL or "" means the defaults.
 * Unknown names and an empty result are CW_EINVAL with a message naming the known ones. */
int cw_reconcilers_select(const cw_reconciler_ops *const *all, const char *spec,
                          const cw_reconciler_ops **out, size_t *n, cw_error *err) CW_MUST_CHECK;
/* "schedule, recurringjob, ..." (every name, in order) into buf. */
void cw_reconcilers_names(const cw_reconciler_ops *const *all, char *buf, size_t len,
                          int defaults_only);

/* What the controller's flags are parsed into, made before they are: every reconciler of `all`'s
 * config (config_size zeroed bytes; NULL where none), and the flags several read. _free after
 * cw_opts_free (which frees the strings and lists the parser put in them). */
typedef struct cw_reconciler_configs {
    cw_ctrl_flags *shared;
    void *cfgs[CW_RECONCILERS_MAX]; /* per entry of all */
} cw_reconciler_configs;

int cw_reconciler_configs_init(cw_reconciler_configs *c, const cw_reconciler_ops *const *all,
                               cw_error *err) CW_MUST_CHECK;
void cw_reconciler_configs_free(cw_reconciler_configs *c);

/* Every reconciler's option rows appended to out and their bases to bases (cw_opts_append_at: room
 * for cap, *n there), each into its config in c or c->shared. */
int cw_reconcilers_opts(const cw_reconciler_ops *const *all, cw_reconciler_configs *c, cw_opt *out,
                        void **bases, size_t cap, size_t *n, cw_error *err) CW_MUST_CHECK;
/* Every reconciler's config_init once the flags are parsed; on failure the ones made are undone.
 * unconfigure: every config_fini. */
int cw_reconcilers_configure(const cw_reconciler_ops *const *all, cw_reconciler_configs *c,
                             cw_error *err) CW_MUST_CHECK;
void cw_reconcilers_unconfigure(const cw_reconciler_ops *const *all, cw_reconciler_configs *c);

#endif
