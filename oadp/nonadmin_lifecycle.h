/* What the NonAdminBackup and NonAdminRestore decisions share (oadp/nonadminbackup.c,
 * oadp/nonadminrestore.c): one kind descriptor with OADP's names, the actions a step
 * returns, the status being built (phases only forward, conditions as metav1 sets them, copies
 * and queue position written only when they differ), finalizers, the Velero object with OADP's
 * origin labels and annotations, and the common lifecycle: first sight -> New; New/BackingOff ->
 * validate, record the nacuuid, hold the finalizer, create or adopt the Velero object -> Created;
 * Created -> mirror it. Rules from oadp/nonadmin.h; docs/controller.md. */
#ifndef CW_NAC_H
#define CW_NAC_H

#include <json-c/json.h>

#include "oadp/nonadmin.h"
#include "lib/error.h"

typedef struct cw_nac_kind {
    const char *velero_kind;                    /* "Backup", "Restore" */
    const char *ref;                            /* status field: "veleroBackup", "veleroRestore" */
    const char *spec;                           /* its large spec member: "backupSpec", ... */
    const char *finalizer, *label_nacuuid;      /* OADP's finalizer and nacuuid label */
    const char *ann_name, *ann_namespace;       /* OADP's origin annotations */
    const char *accepted_reason, *accepted_msg; /* Accepted=True */
    const char *invalid_reason;                 /* Accepted=False, the spec refused */
    const char *scheduled_reason, *scheduled_msg; /* Queued=True */
    const char *notfound_reason;                  /* Accepted=False, the Velero object went away */
} cw_nac_kind;

extern const cw_nac_kind cw_nac_backup_kind, cw_nac_restore_kind;

typedef enum {
    CW_NAC_NONE,      /* nothing to do (or waiting for a delete to arrive) */
    CW_NAC_NEW,       /* first sight */
    CW_NAC_INVALID,   /* spec refused */
    CW_NAC_ACCEPTED,  /* nacuuid recorded */
    CW_NAC_FINALIZER, /* finalizer added */
    CW_NAC_CREATE,    /* Velero object to create */
    CW_NAC_ADOPT,     /* Velero object found under the recorded nacuuid */
    CW_NAC_SYNC,      /* Created: status mirrored */
    CW_NAC_LOST,      /* Created, the Velero object is gone */
    CW_NAC_DELETE,    /* spec.deleteBackup: delete the NonAdminBackup */
    CW_NAC_PURGING,   /* being deleted with deleteBackup: DeleteBackupRequest, waiting */
    CW_NAC_DETACHING, /* being deleted: the Velero object is going */
    CW_NAC_RELEASE,   /* the Velero object is gone: finalizer removed */
    CW_NAC_REFUSED,   /* the API server refused the Velero object (422): BackingOff */
} cw_nac_outcome;

typedef struct cw_nac_actions {
    cw_nac_outcome outcome;
    json_object *status;     /* the whole new status to PUT through /status; NULL: none */
    json_object *finalizers; /* the new metadata.finalizers to patch; NULL: none */
    json_object *create;     /* the Velero object to create; NULL: none */
    json_object *dbr;        /* the DeleteBackupRequest to create; NULL: none */
    int delete_velero;       /* delete the Velero object (a Backup: not its data) */
    int delete_dbrs;         /* delete every DeleteBackupRequest given */
    int delete_nars;         /* delete the NonAdminRestores made from this backup */
    int delete_self;         /* DELETE the NonAdmin object (its finalizer holds it) */
    int wait;                /* look again in a few seconds (deletions in progress) */
    char nacuuid[CW_NACUUID_MAX + 1];
} cw_nac_actions;

void cw_nac_actions_init(cw_nac_actions *a);
void cw_nac_actions_free(cw_nac_actions *a);
const char *cw_nac_outcome_name(cw_nac_outcome o);

typedef struct cw_nac_input {
    json_object *obj;    /* the NonAdminBackup/NonAdminRestore as stored */
    json_object *velero; /* its Velero object (named nacuuid, carrying this object's origin), or
                            NULL when there is none */
    json_object *all;    /* JSON array: the Velero objects of that kind in the OADP namespace */
    json_object *dbrs;   /* NonAdminBackup: DeleteBackupRequests labelled with the nacuuid */
    json_object *nab;    /* NonAdminRestore: the NonAdminBackup spec.restoreSpec.backupName names
                            in the same namespace, or NULL */
    json_object *backup; /* NonAdminRestore: the Velero Backup named by nab's
                            status.veleroBackup.nacuuid in the OADP namespace, as the API or a
                            cache holds it (metadata with labels and annotations), or NULL when
                            there is none; read whenever nab is. Without it no Restore is made. */
    const char *refused; /* the cache did not keep the spec (controller/nonadmin_keep.h): the
                            BackingOff message (cw_nac_size_msg, cw_nac_share_msg) in place of
                            the checks; NULL: the spec is in obj */
    const char *now;     /* RFC 3339 */
    const char *uuid;    /* a fresh uuid4, used only when a nacuuid is generated */
} cw_nac_input;

/* 1 when the Velero object belongs to the NonAdmin object ns/name: its origin annotations and its
 * nacuuid label say so (cw_nac_origin_is). Anything else under the recorded name is never adopted,
 * mirrored, deleted or restored from. */
int cw_nac_owns(const cw_nac_kind *k, json_object *velero, const char *ns, const char *name,
                const char *nacuuid);

/* The status being built for one step. */
typedef struct cw_nac_step {
    json_object *status; /* working copy */
    int changed, oom;
} cw_nac_step;

/* Checks name, namespace, phase and nacuuid (CW_EINVAL naming the field), copies the status and
 * the nacuuid into out, the phase's rank (cw_nac_phase_rank) into *rank. */
int cw_nac_step_init(cw_nac_step *s, json_object *obj, const char *ref, cw_nac_actions *out,
                     int *rank, cw_error *err);
/* Moves the status into out when it changed (not when the object is released: it goes); frees
 * the rest. CW_ENOMEM (out freed) when any step ran out of memory. */
int cw_nac_step_finish(cw_nac_step *s, cw_nac_actions *out, cw_error *err);
void cw_nac_step_phase(cw_nac_step *s, const char *phase); /* only forward */
void cw_nac_step_cond(cw_nac_step *s, const char *type, const char *status, const char *reason,
                      const char *msg, const char *now);
/* status.<ref>.<key> and friends are set through this: o.<key> := copy of v ({} when NULL). */
void cw_nac_step_copy(cw_nac_step *s, json_object *o, const char *key, json_object *v);
void cw_nac_step_queue(cw_nac_step *s, int64_t position);
/* status.<key> (an object), created when absent; NULL (oom set) when out of memory. */
json_object *cw_nac_step_child(cw_nac_step *s, json_object *o, const char *key);
/* o.<key> := v (a string) when it differs. */
void cw_nac_step_str(cw_nac_step *s, json_object *o, const char *key, const char *v);

int cw_nac_has_finalizer(json_object *obj, const char *finalizer);
/* metadata.finalizers with finalizer added (add) or removed; NULL when out of memory. */
json_object *cw_nac_finalizers(json_object *obj, const char *finalizer, int add);
/* A velero.io/v1 object of kind, named nacuuid in the OADP namespace, with OADP's labels and the
 * kind's origin annotations; spec is taken (also on failure). */
int cw_nac_velero_object(const cw_nac_kind *k, const char *velero_kind, const char *ns,
                         const char *name, const char *nacuuid, const char *oadp, json_object *spec,
                         json_object **out);

/* New or BackingOff. msg: the validation problem (NULL: valid). spec: the Velero spec to create
 * (taken; used only when the object is created). A recorded nacuuid that is no valid name (made
 * before names were cut on a letter or digit) names nothing that exists: a new one is recorded. */
int cw_nac_admit(const cw_nac_kind *k, const cw_nac_input *in, const char *oadp, const char *msg,
                 json_object *spec, cw_nac_step *s, cw_nac_actions *out);
/* The API server refused the Velero object the decision asked to create (the create answered
 * 422: it was validated and not stored; Velero's CRD schema, or a name it cannot hold). message:
 * the create's cw_error message; the Status message after kube/'s "<VERB> <URL>: 422
 * Unprocessable Entity: " becomes the condition's. out: BackingOff, Accepted=False with the
 * kind's invalid reason, that message and observedGeneration = metadata.generation, and
 * status.<ref> without the nacuuid (nothing exists under it: after an edit a new one is
 * recorded). Until metadata.generation changes (the user edits the spec), cw_nac_admit leaves the
 * object so (outcome CW_NAC_INVALID, nothing written). The shell calls it on a 422 from the
 * create, and writes out->status as for a decision. Errors as cw_nac_step_init; CW_ENOMEM. */
int cw_nac_refused(const cw_nac_kind *k, const cw_nac_input *in, const char *message,
                   cw_nac_actions *out, cw_error *err);
/* Created: mirror the Velero object, or say it went away. */
void cw_nac_sync(const cw_nac_kind *k, const cw_nac_input *in, cw_nac_step *s, cw_nac_actions *out);

#endif
