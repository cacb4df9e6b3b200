/* Shared between the health model's own files; not for callers. */
#ifndef CW_HEALTH_INTERNAL_H
#define CW_HEALTH_INTERNAL_H

#include "schedules/health.h"
#include "lib/buf.h"

/* obj.<key> as an RFC 3339 time: CW_HEALTH_NONE when absent, null or "" (Longhorn writes empty
 * strings for unset times); CW_EINVAL "<where>.<key>: ..." when it is something else. */
int cw_health__time(json_object *obj, const char *where, const char *key, int64_t *out,
                    cw_error *err) CW_MUST_CHECK;
/* The string under `key` of a map (labels, annotations: keys hold dots, so not a path), or NULL
 * when absent or not a string. */
const char *cw_health__key(json_object *map, const char *key);
/* strdup of s (NULL stays NULL); 0 on allocation failure of a non-NULL s. */
int cw_health__dup(char **dst, const char *s);

/* The parts of a CronJob a schedule takes (collector: one per RecurringJob). */
typedef struct cw_health_cronjob {
    char *name, *recurringjob, *schedule, *zone;
    int suspended, forbid;
    int64_t created, last_schedule, starting_deadline;
    long success_limit, failed_limit;
} cw_health_cronjob;

int cw_health__read_cronjob(json_object *cj, cw_health_cronjob *out, cw_error *err) CW_MUST_CHECK;
void cw_health__cronjob_free(cw_health_cronjob *c);
/* Points s's CronJob fields at c's (borrowed: s must not outlive c, nor be freed as owning). */
void cw_health__apply_cronjob(cw_health_sched *s, const cw_health_cronjob *c);

/* A schedule's cron, parsed with its zone (CRON_TZ= prefix, else the CronJob's spec.timeZone,
 * else cfg->zone_offset). 0 and a message in err->message when it cannot fire. */
typedef struct cw_health_cron {
    cw_cron parsed;
    int every; /* an @every schedule: fires chain from an anchor */
    int32_t offset;
} cw_health_cron;
int cw_health__parse(const cw_health_config *cfg, const cw_health_sched *s, cw_health_cron *c,
                     cw_error *err) CW_MUST_CHECK;

/* Growable arrays of times. */
typedef struct cw_health_times {
    int64_t *t;
    size_t n, cap;
} cw_health_times;
int cw_health__times_add(cw_health_times *ts, int64_t t) CW_MUST_CHECK;
void cw_health__times_free(cw_health_times *ts);

/* The fire times of s in (lo, hi], then the first one after hi, into out (sorted). @every
 * schedules chain as their controller does: a CronJob from its lastScheduleTime (or creation),
 * a Velero Schedule from its creation, restarting at each run it submitted and at lastSkipped
 * (runs sorted by their time). CW_ENOMEM; CW_ELIMIT past 1,000,000 fire times. */
int cw_health__fires(const cw_health_config *cfg, const cw_health_sched *s, const cw_health_cron *c,
                     const cw_health_run *runs, size_t nruns, int64_t lo, int64_t hi,
                     cw_health_times *out) CW_MUST_CHECK;
/* The latest fire time <= now and the one before it (CW_HEALTH_NONE when there is none within
 * robfig's five years), for crons (not @every). */
void cw_health__last_two(const cw_health_cron *c, int64_t now, int64_t *last, int64_t *prev);

/* Volumes (health/volumes.c). */
typedef struct cw_health_volume {
    char *namespace, *name;
    const char *sig; /* interned in h->sigs: "j:<job>\ng:<group>\n", sorted */
    char *legacy;    /* legacy backup crons "<cron>\n..." (Longhorn < 1.2), or NULL */
    int64_t created;
} cw_health_volume;
typedef struct cw_health_backup {
    char *volume; /* "<ns>/<volume>" */
    int64_t at;   /* a completed backup's time (NONE: not completed) */
} cw_health_backup;
int cw_health__add_volume(cw_health *h, json_object *obj, const char *ns, const char *name,
                          const char *source, cw_error *err) CW_MUST_CHECK;
void cw_health__volume_free(cw_health *h, cw_health_volume *v);
int cw_health__add_backup(cw_health *h, json_object *obj, int backupvolume, const char *ns,
                          const char *name, const char *source, cw_error *err) CW_MUST_CHECK;
int cw_health__volumes(cw_health *h, int keep, cw_error *err) CW_MUST_CHECK;
void cw_health__volume_results_free(cw_health *h);

#endif
