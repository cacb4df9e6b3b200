/* The write-war guard: two controllers that each rewrite an object the other wrote would rewrite
 * it forever (say Longhorn's manager and cronwarden, each with its own bytes for a CronJob). The
 * guard remembers, per object a reconciler wrote, what it wrote (a fingerprint of the content it
 * wants) and the object's uid. A decision to write the same content again to the same object means
 * someone undid it; more than CW_CTRL_WAR_REWRITES such rewrites within CW_CTRL_WAR_WINDOW_S and
 * the object is contested: the reconciler stops writing it (until the process restarts or the
 * object is made anew), says so once, and names the other writer from the object's managedFields.
 * A change of what the reconciler wants (a new cron, a Setting) is no war: the count starts over.
 * Thread-safe; bounded (CW_CTRL_WAR_MAX objects, then the oldest memories are dropped). */
#ifndef CW_CTRL_WRITEWAR_H
#define CW_CTRL_WRITEWAR_H

#include <json-c/json.h>
#include <pthread.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/strmap.h"

#define CW_CTRL_WAR_REWRITES 3
#define CW_CTRL_WAR_WINDOW_S 600
#define CW_CTRL_WAR_MAX      20000

typedef enum {
    CW_WAR_WRITE,     /* go ahead */
    CW_WAR_CONTESTED, /* do not write: contested since before */
    CW_WAR_NEW,       /* do not write: contested from now on (say so) */
} cw_ctrl_war;

typedef struct cw_ctrl_warguard {
    pthread_mutex_t mu;
    cw_strmap objs; /* object key -> struct war_obj * */
    int ok;
} cw_ctrl_warguard;

int cw_ctrl_warguard_init(cw_ctrl_warguard *g, cw_error *err) CW_MUST_CHECK;
void cw_ctrl_warguard_free(cw_ctrl_warguard *g);
/* Before writing content `want` (a fingerprint: cw_ctrl_war_fingerprint) to the object `key`
 * (e.g. "cronjobs.batch/ns/name") whose uid is now `uid`: CW_WAR_NEW when the same content went
 * to the same object CW_CTRL_WAR_REWRITES times within the window already (each a rewrite after
 * someone undid it). */
cw_ctrl_war cw_ctrl_warguard_check(cw_ctrl_warguard *g, const char *key, const char *uid,
                                   uint64_t want, int64_t now_ms);
/* After writing `want` to it (uid: the object's, as the write answered); the same content to the
 * same object as last time counts as a rewrite. */
void cw_ctrl_warguard_wrote(cw_ctrl_warguard *g, const char *key, const char *uid, uint64_t want,
                            int64_t now_ms);
/* The fingerprint of an object's content (its compact JSON). */
uint64_t cw_ctrl_war_fingerprint(json_object *obj);
/* The manager of the newest "Update" entry of obj's metadata.managedFields that is not `ours`
 * (by time; the last listed among equal times), or NULL. Borrowed from obj. */
const char *cw_ctrl_war_other_writer(json_object *obj, const char *ours);

#endif
