/* The NonAdminBackup and NonAdminRestore decisions (oadp/nonadminbackup.c,
 * nonadminrestore.c, over oadp/nonadmin_lifecycle.c): every transition, one
 * table of real cases compared exactly (outcome, the whole new status, finalizers, the Velero
 * Backup and DeleteBackupRequest to create, the deletions). Every case that writes a status or
 * finalizers is then replayed on the object as written: the decision must not write the same thing
 * twice (a no-op resync writes nothing). The NonAdminBackup is shop/daily; now is T1. */
#include "tests/unit/controller/ctrl_test.h"

#include "controller/nonadmin_keep.h"
#include "kube/client.h"
#include "lib/buf.h"
#include "oadp/nonadminbackup.h"
#include "oadp/nonadminrestore.h"

#define T0   "2026-01-01T00:00:00Z"
#define T1   "2026-01-01T00:00:05Z"
#define UUID "0d0b7b2c-ee76-412d-a867-2c23b8aa51ab"
#define NAC  "shop-daily-" UUID
#define F    "'nonadminbackup.oadp.openshift.io/finalizer'"

#define META(extra)                                                                                \
    "'metadata':{'name':'daily','namespace':'shop','uid':'u1','resourceVersion':'5'" extra "}"
#define NAB(extra, spec, status)                                                                   \
    "{'apiVersion':'oadp.openshift.io/v1alpha1','kind':'NonAdminBackup'," META(                    \
        extra) ",'spec':" spec ",'status':" status "}"
#define FIN      ",'finalizers':[" F "]"
#define DELETED  ",'deletionTimestamp':'" T1 "'"
#define SPEC     "{'backupSpec':{'ttl':'1h0m0s'}}"
#define BAD      "{'backupSpec':{'includedNamespaces':['bank']}}"
#define DEL_SPEC "{'backupSpec':{},'deleteBackup':true}"
#define BAD_MSG                                                                                    \
    "NonAdminBackup spec.backupSpec.includedNamespaces is restricted, can not contain namespaces " \
    "other than: shop"
#define COND(type, st, reason, msg, t)                                                             \
    "{'type':'" type "','status':'" st "','reason':'" reason "','message':'" msg                   \
    "','lastTransitionTime':'" t "'}"
#define ACC(t)   COND("Accepted", "True", "BackupAccepted", "backup accepted", t)
#define QUEUED   COND("Queued", "True", "BackupScheduled", "Created Velero Backup object", T0)
#define VBREF    "'veleroBackup':{'nacuuid':'" NAC "','name':'" NAC "','namespace':'openshift-adp'"
#define ACCEPTED "{'phase':'New','conditions':[" ACC(T0) "]," VBREF "}}"
#define CREATED(vbstatus, pos)                                                                     \
    "{'phase':'Created','conditions':[" ACC(T0) "," QUEUED "]," VBREF ",'status':" vbstatus        \
                                                "},'queueInfo':{'estimatedQueuePosition':" pos     \
                                                "}}"
#define ORIGIN                                                                                     \
    "'labels':{'openshift.io/oadp':'True','app.kubernetes.io/managed-by':'oadp-nac-controller',"   \
    "'openshift.io/oadp-nab-origin-nacuuid':'" NAC "'},'annotations':{"                            \
    "'openshift.io/oadp-nab-origin-name':'daily','openshift.io/oadp-nab-origin-namespace':'shop'}"
/* OADP's exclusions, spelled out (not taken from the code under test). */
#define EXCL_NAC "'nonadminbackups','nonadminrestores','nonadminbackupstoragelocations'"
#define EXCL_CLUSTER                                                                               \
    "'securitycontextconstraints','clusterroles','clusterrolebindings','priorityclasses',"         \
    "'customresourcedefinitions','virtualmachineclusterinstancetypes',"                            \
    "'virtualmachineclusterpreferences'"
#define VB(created, status)                                                                        \
    "{'metadata':{'name':'" NAC "','namespace':'openshift-adp','creationTimestamp':'" created      \
    "'," ORIGIN "},'status':" status "}"
#define OTHER(name, created, status)                                                               \
    "{'metadata':{'name':'" name "','creationTimestamp':'" created "'},'status':" status "}"
/* What cw_nac_refused writes when Velero's CRD refused generation gen. */
#define REFUSED_MSG                                                                                \
    "Backup.velero.io \\\"x\\\" is invalid: spec.ttl: Invalid value: \\\"integer\\\": spec.ttl "   \
    "in body must be of type string"
#define REFUSED_ST(gen)                                                                            \
    "{'phase':'BackingOff','conditions':[{'type':'Accepted','status':'False','reason':"            \
    "'InvalidBackupSpec','message':'" REFUSED_MSG "','lastTransitionTime':'" T1                    \
    "','observedGeneration':" gen "}]}"
#define RUNNING  "{'phase':'InProgress'}"
#define DONE     "{'phase':'Completed','completionTimestamp':'" T1 "'}"
#define QUEUE(s) "[" OTHER("x", T0, "{}") "," OTHER("y", T0, DONE) "," VB(T1, s) "]"

typedef struct {
    const char *label;
    const char *nab, *backup, *backups, *dbrs, *enforced;
    cw_nac_outcome outcome;
    const char *status, *finalizers, *create, *dbr;
    const char *flags; /* "nars nab backup dbrs wait" as they apply */
} nab_case;

static const nab_case cases[] = {
    /* ---- admission ---- */
    {"first sight: phase New", NAB("", SPEC, "{}"), NULL, "[]", NULL, NULL, CW_NAC_NEW,
     "{'phase':'New'}", NULL, NULL, NULL, ""},
    {"no status at all: phase New", NAB("", SPEC, "null"), NULL, "[]", NULL, NULL, CW_NAC_NEW,
     "{'phase':'New'}", NULL, NULL, NULL, ""},
    {"invalid: BackingOff, Accepted=False InvalidBackupSpec with OADP's message",
     NAB("", BAD, "{'phase':'New'}"), NULL, "[]", NULL, NULL, CW_NAC_INVALID,
     "{'phase':'BackingOff','conditions':[" COND("Accepted", "False", "InvalidBackupSpec", BAD_MSG,
                                                 T1) "]}",
     NULL, NULL, NULL, ""},
    {"still invalid: nothing written",
     NAB("", BAD,
         "{'phase':'BackingOff','conditions':[" COND("Accepted", "False", "InvalidBackupSpec",
                                                     BAD_MSG, T0) "]}"),
     NULL, "[]", NULL, NULL, CW_NAC_INVALID, NULL, NULL, NULL, NULL, ""},
    {"enforced by the administrator", NAB("", "{'backupSpec':{'ttl':'1h0m0s'}}", "{'phase':'New'}"),
     NULL, "[]", NULL, "{'ttl':'720h0m0s'}", CW_NAC_INVALID,
     "{'phase':'BackingOff','conditions':[" COND(
         "Accepted", "False", "InvalidBackupSpec",
         "the administrator has restricted spec.backupSpec.ttl field value to 720h0m0s", T1) "]}",
     NULL, NULL, NULL, ""},
    {"valid: Accepted, the nacuuid recorded before anything is created",
     NAB("", SPEC, "{'phase':'New'}"), NULL, "[]", NULL, NULL, CW_NAC_ACCEPTED,
     "{'phase':'New','conditions':[" ACC(T1) "]," VBREF "}}", NULL, NULL, NULL, ""},
    {"edited from invalid to valid: accepted, still BackingOff until Created",
     NAB("", SPEC,
         "{'phase':'BackingOff','conditions':[" COND("Accepted", "False", "InvalidBackupSpec",
                                                     BAD_MSG, T0) "]}"),
     NULL, "[]", NULL, NULL, CW_NAC_ACCEPTED,
     "{'phase':'BackingOff','conditions':[" ACC(T1) "]," VBREF "}}", NULL, NULL, NULL, ""},
    {"nacuuid recorded: the finalizer next", NAB(",'finalizers':['keep']", SPEC, ACCEPTED), NULL,
     "[]", NULL, NULL, CW_NAC_FINALIZER, NULL, "['keep'," F "]", NULL, NULL, ""},
    {"finalizer held: the Velero Backup, then Created + Queued", NAB(FIN, SPEC, ACCEPTED), NULL,
     "[]", NULL, "{'snapshotVolumes':false}", CW_NAC_CREATE,
     "{'phase':'Created','conditions':[" ACC(T0) "," COND(
         "Queued", "True", "BackupScheduled", "Created Velero Backup object",
         T1) "]," VBREF ",'status':{}},'queueInfo':{'estimatedQueuePosition':0}}",
     NULL,
     "{'apiVersion':'velero.io/v1','kind':'Backup','metadata':{'name':'" NAC
     "','namespace':'openshift-adp'," ORIGIN "},'spec':{'ttl':'1h0m0s','includedNamespaces':"
     "['shop'],'snapshotVolumes':false,'excludedResources':[" EXCL_NAC "," EXCL_CLUSTER "]}}",
     NULL, ""},
    {"a crash after the create: the recorded nacuuid's Backup is adopted, not made again",
     NAB(FIN, SPEC, ACCEPTED), VB(T1, "{'phase':'New'}"), QUEUE("{'phase':'New'}"), NULL, NULL,
     CW_NAC_ADOPT,
     "{'phase':'Created','conditions':[" ACC(T0) "," COND(
         "Queued", "True", "BackupScheduled", "Created Velero Backup object",
         T1) "]," VBREF ",'status':{'phase':'New'}},'queueInfo':{'estimatedQueuePosition':2}}",
     NULL, NULL, NULL, ""},
    {"a recorded nacuuid that is no name (the cut before '.' was dropped): a new one",
     NAB(FIN, SPEC,
         "{'phase':'New','conditions':[" ACC(T0) "],'veleroBackup':{'nacuuid':'shop-daily.-" UUID
                                                 "','name':'shop-daily.-" UUID
                                                 "','namespace':'openshift-adp'}}"),
     NULL, "[]", NULL, NULL, CW_NAC_ACCEPTED, ACCEPTED, NULL, NULL, NULL, ""},
    {"a nacuuid someone else wrote into the status (an administrator's next Schedule backup): "
     "never created under it, a new one recorded",
     NAB(FIN, SPEC,
         "{'phase':'New','conditions':[" ACC(T0) "],'veleroBackup':{'nacuuid':'nightly-"
                                                 "20260102010000','name':'nightly-20260102010000',"
                                                 "'namespace':'openshift-adp'}}"),
     NULL, "[]", NULL, NULL, CW_NAC_ACCEPTED, ACCEPTED, NULL, NULL, NULL, ""},
    {"... or another NonAdminBackup's",
     NAB(FIN, SPEC,
         "{'phase':'New','conditions':[" ACC(T0) "],'veleroBackup':{'nacuuid':'bank-daily-" UUID
                                                 "','name':'bank-daily-" UUID
                                                 "','namespace':'openshift-adp'}}"),
     NULL, "[]", NULL, NULL, CW_NAC_ACCEPTED, ACCEPTED, NULL, NULL, NULL, ""},
    {"Velero refused this generation: nothing until the spec is edited",
     NAB(",'generation':2" FIN, SPEC, REFUSED_ST("2")), NULL, "[]", NULL, NULL, CW_NAC_INVALID,
     NULL, NULL, NULL, NULL, ""},
    {"edited after Velero's refusal: accepted, a new nacuuid",
     NAB(",'generation':3" FIN, SPEC, REFUSED_ST("2")), NULL, "[]", NULL, NULL, CW_NAC_ACCEPTED,
     "{'phase':'BackingOff','conditions':[" ACC(T1) "]," VBREF "}}", NULL, NULL, NULL, ""},
    {"a resource policy not on the administrator's list",
     NAB("", "{'backupSpec':{'resourcePolicy':{'kind':'configmap','name':'skip-nothing'}}}",
         "{'phase':'New'}"),
     NULL, "[]", NULL, NULL, CW_NAC_INVALID,
     "{'phase':'BackingOff','conditions':[" COND(
         "Accepted", "False", "InvalidBackupSpec",
         "NonAdminBackup spec.backupSpec.resourcePolicy is restricted, can only name a ConfigMap "
         "the administrator allows (--allowed-resource-policies): none",
         T1) "]}",
     NULL, NULL, NULL, ""},
    {"a hook reaching for another namespace",
     NAB("",
         "{'backupSpec':{'hooks':{'resources':[{'name':'h','includedNamespaces':['*'],'pre':[{"
         "'exec':{'command':['x']}}]}]}}}",
         "{'phase':'New'}"),
     NULL, "[]", NULL, NULL, CW_NAC_INVALID,
     "{'phase':'BackingOff','conditions':[" COND(
         "Accepted", "False", "InvalidBackupSpec",
         "NonAdminBackup spec.backupSpec.hooks.resources[0].includedNamespaces is restricted, can "
         "not contain namespaces other than: shop",
         T1) "]}",
     NULL, NULL, NULL, ""},
    /* ---- mirroring ---- */
    {"Created: status mirrored, queue position 1 + unfinished earlier ones",
     NAB(FIN, SPEC, CREATED("{}", "0")), VB(T1, RUNNING), QUEUE(RUNNING), NULL, NULL, CW_NAC_SYNC,
     CREATED(RUNNING, "2"), NULL, NULL, NULL, ""},
    {"nothing changed: nothing written", NAB(FIN, SPEC, CREATED(RUNNING, "2")), VB(T1, RUNNING),
     QUEUE(RUNNING), NULL, NULL, CW_NAC_SYNC, NULL, NULL, NULL, NULL, ""},
    {"finished: position 0, the status copied whole", NAB(FIN, SPEC, CREATED(RUNNING, "2")),
     VB(T1, DONE), QUEUE(DONE), NULL, NULL, CW_NAC_SYNC, CREATED(DONE, "0"), NULL, NULL, NULL, ""},
    {"the backup queue's position while Queued; the phase as OADP's CRD can hold it",
     NAB(FIN, SPEC, CREATED("{}", "0")), VB(T1, "{'phase':'Queued','queuePosition':5,'version':1}"),
     QUEUE("{'phase':'Queued','queuePosition':5}"), NULL, NULL, CW_NAC_SYNC,
     CREATED("{'phase':'New','version':1}", "5"), NULL, NULL, NULL, ""},
    {"ReadyToStart reads New too", NAB(FIN, SPEC, CREATED("{'phase':'New','version':1}", "5")),
     VB(T1, "{'phase':'ReadyToStart','queuePosition':0,'version':1}"),
     QUEUE("{'phase':'ReadyToStart'}"), NULL, NULL, CW_NAC_SYNC,
     CREATED("{'phase':'New','version':1}", "2"), NULL, NULL, NULL, ""},
    {"mirrored as the CRD holds it: nothing to write again",
     NAB(FIN, SPEC, CREATED("{'phase':'New','version':1}", "5")),
     VB(T1, "{'phase':'Queued','queuePosition':5,'version':1}"),
     QUEUE("{'phase':'Queued','queuePosition':5}"), NULL, NULL, CW_NAC_SYNC, NULL, NULL, NULL, NULL,
     ""},
    {"a spec edited to invalid after Created changes nothing", NAB(FIN, BAD, CREATED(RUNNING, "2")),
     VB(T1, RUNNING), QUEUE(RUNNING), NULL, NULL, CW_NAC_SYNC, NULL, NULL, NULL, NULL, ""},
    {"the Velero Backup disappeared: Accepted=False VeleroBackupNotFound, never recreated",
     NAB(FIN, SPEC, CREATED(RUNNING, "2")), NULL, "[]", NULL, NULL, CW_NAC_LOST,
     "{'phase':'Created','conditions':[" COND("Accepted", "False", "VeleroBackupNotFound",
                                              "related Velero Backup openshift-adp/" NAC
                                              " not found",
                                              T1) "," QUEUED "]," VBREF ",'status':" RUNNING
                                                  "},'queueInfo':{'estimatedQueuePosition':0}}",
     NULL, NULL, NULL, ""},
    /* ---- deletion ---- */
    {"spec.deleteBackup: Deleting, its restores and the NonAdminBackup deleted",
     NAB(FIN, DEL_SPEC, CREATED(DONE, "0")), VB(T1, DONE), "[]", NULL, NULL, CW_NAC_DELETE,
     "{'phase':'Deleting','conditions':[" ACC(T0) "," QUEUED "," COND(
         "Deleting", "True", "DeletionPending", "backup accepted for deletion",
         T1) "]," VBREF ",'status':" DONE "},'queueInfo':{'estimatedQueuePosition':0}}",
     NULL, NULL, NULL, "nars nab"},
    {"deleteBackup on an invalid one: deleted too (no finalizer holds it)",
     NAB("", "{'backupSpec':{'includedNamespaces':['bank']},'deleteBackup':true}",
         "{'phase':'BackingOff'}"),
     NULL, "[]", NULL, NULL, CW_NAC_DELETE,
     "{'phase':'Deleting','conditions':[" COND("Deleting", "True", "DeletionPending",
                                               "backup accepted for deletion", T1) "]}",
     NULL, NULL, NULL, "nars nab"},
    {"being deleted with deleteBackup: a DeleteBackupRequest, recorded",
     NAB(FIN DELETED, DEL_SPEC, CREATED(DONE, "0")), VB(T1, DONE), "[]", "[]", NULL, CW_NAC_PURGING,
     "{'phase':'Deleting','conditions':[" ACC(T0) "," QUEUED "," COND(
         "Deleting", "True", "DeletionPending", "backup accepted for deletion",
         T1) "]," VBREF ",'status':" DONE "},'queueInfo':{'estimatedQueuePosition':0},"
             "'veleroDeleteBackupRequest':{'nacuuid':'" NAC "','name':'" NAC
             "','namespace':'openshift-adp','status':{}}}",
     NULL, NULL,
     "{'apiVersion':'velero.io/v1','kind':'DeleteBackupRequest','metadata':{'name':'" NAC
     "','namespace':'openshift-adp'," ORIGIN "},'spec':{'backupName':'" NAC "'}}",
     "wait"},
    {"the DeleteBackupRequest's progress is mirrored",
     NAB(FIN DELETED, DEL_SPEC,
         "{'phase':'Deleting','veleroBackup':{'nacuuid':'" NAC
         "'},'veleroDeleteBackupRequest':{'nacuuid':'" NAC "','name':'" NAC
         "','namespace':'openshift-adp','status':{}}}"),
     VB(T1, DONE), "[]", "[{'metadata':{'name':'" NAC "'},'status':{'phase':'InProgress'}}]", NULL,
     CW_NAC_PURGING,
     "{'phase':'Deleting','veleroBackup':{'nacuuid':'" NAC
     "'},'veleroDeleteBackupRequest':{'nacuuid':'" NAC "','name':'" NAC
     "','namespace':'openshift-adp','status':{'phase':'InProgress'}},'conditions':[" COND(
         "Deleting", "True", "DeletionPending", "backup accepted for deletion", T1) "]}",
     NULL, NULL, NULL, "wait"},
    {"the Velero Backup is gone: the finalizer goes (no status: the object goes)",
     NAB(",'finalizers':['keep'," F "]" DELETED, DEL_SPEC,
         "{'phase':'Deleting','veleroBackup':{'nacuuid':'" NAC "'}}"),
     NULL, "[]", "[]", NULL, CW_NAC_RELEASE, NULL, "['keep']", NULL, NULL, ""},
    {"a direct delete: the Velero Backup object and its requests go, data kept",
     NAB(FIN DELETED, SPEC, CREATED(DONE, "0")), VB(T1, DONE), "[]",
     "[{'metadata':{'name':'old'}}]", NULL, CW_NAC_DETACHING,
     "{'phase':'Deleting','conditions':[" ACC(T0) "," QUEUED "," COND(
         "Deleting", "True", "DeletionPending",
         "permanent backup deletion requires setting spec.deleteBackup to true",
         T1) "]," VBREF ",'status':" DONE "},'queueInfo':{'estimatedQueuePosition':0}}",
     NULL, NULL, NULL, "backup dbrs wait"},
    {"a direct delete of one that never got a nacuuid: released at once",
     NAB(FIN DELETED, BAD, "{'phase':'BackingOff'}"), NULL, "[]", NULL, NULL, CW_NAC_RELEASE, NULL,
     "[]", NULL, NULL, ""},
    {"being deleted without our finalizer: nothing", NAB(DELETED, SPEC, "{'phase':'New'}"), NULL,
     "[]", NULL, NULL, CW_NAC_NONE, NULL, NULL, NULL, NULL, ""},
    {"Deleting but the delete never arrived: delete again, phase stays",
     NAB(FIN, SPEC, "{'phase':'Deleting'}"), NULL, "[]", NULL, NULL, CW_NAC_NONE, NULL, NULL, NULL,
     NULL, "nab"},
};

static void flags_of(const cw_nac_actions *a, char *out, size_t len)
{
    snprintf(out, len, "%s%s%s%s%s", a->delete_nars ? "nars " : "", a->delete_self ? "nab " : "",
             a->delete_velero ? "backup " : "", a->delete_dbrs ? "dbrs " : "",
             a->wait ? "wait " : "");
    size_t n = strlen(out);
    if (n)
        out[n - 1] = 0;
}

/* The actions, compared exactly with a table row. */
static void expect_actions(const cw_nac_actions *a, const char *label, cw_nac_outcome outcome,
                           const char *status, const char *finalizers, const char *create,
                           const char *flags)
{
    char got[64];
    if (a->outcome != outcome)
        fail_msg("%s: outcome %s, want %s", label, cw_nac_outcome_name(a->outcome),
                 cw_nac_outcome_name(outcome));
    expect_json(a->status, status, "status", label);
    expect_json(a->finalizers, finalizers, "finalizers", label);
    expect_json(a->create, create, "Velero object to create", label);
    flags_of(a, got, sizeof(got));
    if (strcmp(got, flags))
        fail_msg("%s: actions \"%s\", want \"%s\"", label, got, flags);
}

/* obj as the NonAdmin informer hands it to the cache: its text (json-c's compact writing, as the
 * API server's), a watch event's object parsed with the informer's prune (its spec member as
 * text, or over the limit its length). */
static json_object *informer_view(const cw_nac_kind *k, json_object *obj)
{
    char path[64];
    const char *paths[] = {path, NULL};
    cw_buf ev;
    cw_error err;
    json_object *parsed = NULL;
    snprintf(path, sizeof(path), "spec.%s", k->spec);
    cw_buf_init(&ev);
    assert_int_equal(cw_buf_printf(&ev, "{\"type\":\"ADDED\",\"object\":%s}", cw_json_compact(obj)),
                     CW_OK);
    if (cw_kube_parse_pruned(ev.data, ev.len, "object", paths, CW_NAC_SPEC_MAX, &parsed, &err) !=
        CW_OK)
        fail_msg("parse_pruned: %s", err.message);
    json_object *o = json_object_get(json_object_object_get(parsed, "object"));
    json_object_put(parsed);
    cw_buf_free(&ev);
    return o;
}

/* What the reconcile reads after the cache (controller/nonadmin_keep.h): the object as the
 * informer hands it, projected, then read back. *refused as cw_nac_kept_read gives it. */
static json_object *through_cache(const cw_nac_kind *k, json_object *obj, char **refused)
{
    cw_nac_share sh;
    cw_error err;
    json_object *out = NULL, *seen = informer_view(k, obj);
    assert_int_equal(cw_nac_share_init(&sh, &err), CW_OK);
    json_object *kept = cw_nac_keep(k, seen, &sh);
    assert_non_null(kept);
    if (cw_nac_kept_read(k, kept, &out, refused, &err) != CW_OK)
        fail_msg("kept_read: %s", err.message);
    json_object_put(kept);
    json_object_put(seen);
    cw_nac_share_free(&sh);
    return out;
}

/* Every case is decided twice: on the object as the API server gives it, and through the cache;
 * the two must write the same. */
static int cached_pass;

static int decide(const nab_case *c, json_object *nab, json_object *enforced, cw_nac_actions *a,
                  cw_error *err)
{
    json_object *b = tjson(c->backup), *bs = tjson(c->backups), *dbrs = tjson(c->dbrs);
    cw_nabctl_config cfg = {.oadp_namespace = "openshift-adp", .enforced = enforced};
    char *refused = NULL;
    json_object *obj =
        cached_pass ? through_cache(&cw_nac_backup_kind, nab, &refused) : json_object_get(nab);
    assert_null(refused);
    cw_nac_input in = {.obj = obj, .velero = b, .all = bs, .dbrs = dbrs, .now = T1, .uuid = UUID};
    int rc = cw_nabctl_decide(&in, &cfg, a, err);
    json_object_put(obj);
    json_object_put(b);
    json_object_put(bs);
    json_object_put(dbrs);
    return rc;
}

static void test_transitions(void **state)
{
    (void)state;
    for (size_t i = 0; i < 2 * N(cases); i++) {
        cached_pass = i >= N(cases);
        const nab_case *c = &cases[i % N(cases)];
        json_object *nab = tjson(c->nab), *enf = tjson(c->enforced);
        cw_nac_actions a;
        cw_error err;
        cw_nac_actions_init(&a);
        cw_error_init(&err);
        if (decide(c, nab, enf, &a, &err) != CW_OK)
            fail_msg("%s: %s", c->label, err.message);
        expect_actions(&a, c->label, c->outcome, c->status, c->finalizers, c->create, c->flags);
        expect_json(a.dbr, c->dbr, "DeleteBackupRequest", c->label);

        /* Replay on the object as written: the same write must not come again. */
        if (a.status || a.finalizers) {
            json_object *again = NULL;
            assert_int_equal(cw_json_copy(nab, &again), CW_OK);
            if (a.status)
                json_object_object_add(again, "status", json_object_get(a.status));
            if (a.finalizers)
                json_object_object_add(json_object_object_get(again, "metadata"), "finalizers",
                                       json_object_get(a.finalizers));
            cw_nac_actions b;
            cw_nac_actions_init(&b);
            if (decide(c, again, enf, &b, &err) != CW_OK)
                fail_msg("%s (replayed): %s", c->label, err.message);
            if (a.status && b.status && json_object_equal(a.status, b.status))
                fail_msg("%s (replayed): the same status written twice", c->label);
            if (a.finalizers && b.finalizers && json_object_equal(a.finalizers, b.finalizers))
                fail_msg("%s (replayed): the same finalizers written twice", c->label);
            cw_nac_actions_free(&b);
            json_object_put(again);
        }
        cw_nac_actions_free(&a);
        json_object_put(nab);
        json_object_put(enf);
    }
}

typedef struct {
    const char *label, *nab, *error;
} bad_case;

static const bad_case bad_cases[] = {
    {"no namespace", "{'metadata':{'name':'x'}}",
     "metadata.name and metadata.namespace are required"},
    {"the seed's Deletion is not a phase", NAB("", SPEC, "{'phase':'Deletion'}"),
     "status.phase: unknown phase \"Deletion\""},
};

static void test_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(bad_cases); i++) {
        json_object *nab = tjson(bad_cases[i].nab);
        cw_nac_actions a;
        cw_error err;
        cw_nac_actions_init(&a);
        cw_error_init(&err);
        cw_nabctl_config cfg = {.oadp_namespace = "openshift-adp"};
        cw_nac_input in = {.obj = nab, .now = T1, .uuid = UUID};
        assert_int_equal(cw_nabctl_decide(&in, &cfg, &a, &err), CW_EINVAL);
        assert_string_equal(err.message, bad_cases[i].error);
        cw_nac_actions_free(&a);
        json_object_put(nab);
    }
}

typedef struct {
    const char *label, *backup;
    int owns;
} owns_case;

static const owns_case owns_cases[] = {
    {"ours", VB(T1, "{}"), 1},
    {"another namespace's NonAdminBackup of the same name",
     "{'metadata':{'name':'" NAC "','labels':{'openshift.io/oadp-nab-origin-nacuuid':'" NAC
     "'},'annotations':{'openshift.io/oadp-nab-origin-name':'daily',"
     "'openshift.io/oadp-nab-origin-namespace':'bank'}}}",
     0},
    {"an admin's Backup that happens to have the name", "{'metadata':{'name':'" NAC "'}}", 0},
    {"no label",
     "{'metadata':{'annotations':{'openshift.io/oadp-nab-origin-name':'daily',"
     "'openshift.io/oadp-nab-origin-namespace':'shop'}}}",
     0},
};

static void test_owns(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(owns_cases); i++) {
        json_object *b = tjson(owns_cases[i].backup);
        if (cw_nac_owns(&cw_nac_backup_kind, b, "shop", "daily", NAC) != owns_cases[i].owns)
            fail_msg("%s: owns %d", owns_cases[i].label, !owns_cases[i].owns);
        json_object_put(b);
    }
}

/* ---- NonAdminRestore: shop/undo restoring from the NonAdminBackup daily ---- */

#define RNAC "shop-undo-" UUID
#define RF   "'nonadminrestore.oadp.openshift.io/finalizer'"
#define NAR(extra, spec, status)                                                                   \
    "{'apiVersion':'oadp.openshift.io/v1alpha1','kind':'NonAdminRestore','metadata':{'name':"      \
    "'undo','namespace':'shop','uid':'r1','resourceVersion':'9'" extra "},'spec':" spec            \
    ",'status':" status "}"
#define RSPEC     "{'restoreSpec':{'backupName':'daily'}}"
#define NAB_READY "{'status':{'phase':'Created','veleroBackup':{'nacuuid':'" NAC "'}}}"
#define RACC(t)   COND("Accepted", "True", "RestoreAccepted", "restore accepted", t)
#define RREF      "'veleroRestore':{'nacuuid':'" RNAC "','name':'" RNAC "','namespace':'openshift-adp'"
#define RACCEPTED "{'phase':'New','conditions':[" RACC(T0) "]," RREF "}}"
#define RQUEUED   COND("Queued", "True", "RestoreScheduled", "Created Velero Restore object", T1)
#define RORIGIN                                                                                    \
    "'labels':{'openshift.io/oadp':'True','app.kubernetes.io/managed-by':'oadp-nac-controller',"   \
    "'openshift.io/oadp-nar-origin-nacuuid':'" RNAC "'},'annotations':{"                           \
    "'openshift.io/oadp-nar-origin-name':'undo','openshift.io/oadp-nar-origin-namespace':'shop'}"
#define VR(status)                                                                                 \
    "{'metadata':{'name':'" RNAC "','creationTimestamp':'" T1 "'," RORIGIN "},'status':" status "}"

/* daily's Velero Backup, carrying its origin; and one whose annotations name bank's vault. */
#define VBK VB(T0, DONE)
#define VBK_BANK                                                                                   \
    "{'metadata':{'name':'" NAC "','namespace':'openshift-adp','labels':{"                         \
    "'openshift.io/oadp-nab-origin-nacuuid':'" NAC "'},'annotations':{"                            \
    "'openshift.io/oadp-nab-origin-name':'vault','openshift.io/"                                   \
    "oadp-nab-origin-namespace':'bank'}}}"
#define NO_VB                                                                                      \
    "NonAdminRestore spec.restoreSpec.backupName is invalid: no Velero Backup openshift-adp/" NAC  \
    " with the origin label and annotations of NonAdminBackup shop/daily"
#define EXCL_RESTORE "'excludedResources':[" EXCL_NAC "," EXCL_CLUSTER ",'volumesnapshotclasses']"
#define RINIT                                                                                      \
    "{'restoreSpec':{'backupName':'daily','hooks':{'resources':[{'name':'h','postHooks':[{"        \
    "'init':{'initContainers':[{'name':'i','image':'busybox','securityContext':{'privileged':"     \
    "true}}]}}]}]}}}"
#define RINVALID(msg)                                                                              \
    "{'phase':'BackingOff','conditions':[" COND("Accepted", "False", "InvalidRestoreSpec", msg,    \
                                                T1) "]}"

/* What a create writes: Created, Queued, position 0 (the Restore has no status yet). */
#define RCREATED                                                                                   \
    "{'phase':'Created','conditions':[" RACC(                                                      \
        T0) "," RQUEUED "]," RREF ",'status':{}},'queueInfo':{'estimatedQueuePosition':0}}"

static char *allowed_items[] = {"restore-modifiers"};
static cw_strlist allowed = {allowed_items, 1, 1, CW_OK};

typedef struct {
    const char *label, *nar, *nab, *backup, *restore, *restores;
    int liberal; /* the administrator allows init hooks and restore-modifiers */
    cw_nac_outcome outcome;
    const char *status, *finalizers, *create, *flags;
} nar_case;

static const nar_case nar_cases[] = {
    {"first sight", NAR("", RSPEC, "{}"), NAB_READY, VBK, NULL, "[]", 0, CW_NAC_NEW,
     "{'phase':'New'}", NULL, NULL, ""},
    {"the NonAdminBackup is not ready", NAR("", RSPEC, "{'phase':'New'}"),
     "{'status':{'phase':'New'}}", NULL, NULL, "[]", 0, CW_NAC_INVALID,
     RINVALID("NonAdminRestore spec.restoreSpec.backupName is invalid: NonAdminBackup is not "
              "ready to be restored"),
     NULL, NULL, ""},
    {"a namespace mapping",
     NAR("", "{'restoreSpec':{'backupName':'daily','namespaceMapping':{'shop':'bank'}}}",
         "{'phase':'New'}"),
     NAB_READY, VBK, NULL, "[]", 0, CW_NAC_INVALID,
     RINVALID("NonAdminRestore spec.restoreSpec.namespaceMapping is restricted"), NULL, NULL, ""},
    {"forged: daily's status names bank's Velero Backup", NAR("", RSPEC, "{'phase':'New'}"),
     NAB_READY, VBK_BANK, NULL, "[]", 0, CW_NAC_INVALID, RINVALID(NO_VB), NULL, NULL, ""},
    {"daily's Velero Backup is not there", NAR("", RSPEC, "{'phase':'New'}"), NAB_READY, NULL, NULL,
     "[]", 0, CW_NAC_INVALID, RINVALID(NO_VB), NULL, NULL, ""},
    {"includeClusterResources true",
     NAR("", "{'restoreSpec':{'backupName':'daily','includeClusterResources':true}}",
         "{'phase':'New'}"),
     NAB_READY, VBK, NULL, "[]", 0, CW_NAC_INVALID,
     RINVALID("NonAdminRestore spec.restoreSpec.includeClusterResources is restricted, can only "
              "be set to false"),
     NULL, NULL, ""},
    {"an init container hook", NAR("", RINIT, "{'phase':'New'}"), NAB_READY, VBK, NULL, "[]", 0,
     CW_NAC_INVALID,
     RINVALID("NonAdminRestore spec.restoreSpec.hooks.resources[0].postHooks[0].init is "
              "restricted, init container restore hooks are allowed only by the administrator "
              "(--allow-restore-init-hooks)"),
     NULL, NULL, ""},
    {"a resource modifier not on the list",
     NAR("",
         "{'restoreSpec':{'backupName':'daily','resourceModifier':{'kind':'ConfigMap','name':"
         "'x'}}}",
         "{'phase':'New'}"),
     NAB_READY, VBK, NULL, "[]", 1, CW_NAC_INVALID,
     RINVALID("NonAdminRestore spec.restoreSpec.resourceModifier is restricted, can only name a "
              "ConfigMap the administrator allows (--allowed-resource-policies): "
              "restore-modifiers"),
     NULL, NULL, ""},
    {"valid: the nacuuid recorded first", NAR("", RSPEC, "{'phase':'New'}"), NAB_READY, VBK, NULL,
     "[]", 0, CW_NAC_ACCEPTED, "{'phase':'New','conditions':[" RACC(T1) "]," RREF "}}", NULL, NULL,
     ""},
    {"then the finalizer", NAR("", RSPEC, RACCEPTED), NAB_READY, VBK, NULL, "[]", 0,
     CW_NAC_FINALIZER, NULL, "[" RF "]", NULL, ""},
    {"then the Velero Restore of daily's Velero Backup, held to shop",
     NAR(",'finalizers':[" RF "]", RSPEC, RACCEPTED), NAB_READY, VBK, NULL, "[]", 0, CW_NAC_CREATE,
     RCREATED, NULL,
     "{'apiVersion':'velero.io/v1','kind':'Restore','metadata':{'name':'" RNAC
     "','namespace':'openshift-adp'," RORIGIN "},'spec':{'backupName':'" NAC
     "','includedNamespaces':['shop']," EXCL_RESTORE "}}",
     ""},
    {"an init hook the administrator allows: made, held to shop",
     NAR(",'finalizers':[" RF "]", RINIT, RACCEPTED), NAB_READY, VBK, NULL, "[]", 1, CW_NAC_CREATE,
     RCREATED, NULL,
     "{'apiVersion':'velero.io/v1','kind':'Restore','metadata':{'name':'" RNAC
     "','namespace':'openshift-adp'," RORIGIN "},'spec':{'backupName':'" NAC
     "','includedNamespaces':['shop'],'hooks':{'resources':[{'name':'h','postHooks':[{'init':{"
     "'initContainers':[{'name':'i','image':'busybox','securityContext':{'privileged':true}}]}}],"
     "'includedNamespaces':['shop']}]}," EXCL_RESTORE "}}",
     ""},
    {"Created: mirrored, position among unfinished Velero Restores",
     NAR(",'finalizers':[" RF "]", RSPEC,
         "{'phase':'Created','conditions':[" RACC(T0) "," RQUEUED "]," RREF "}}"),
     NULL, NULL, VR("{'phase':'InProgress'}"),
     "[" OTHER("r0", T0, "{}") "," VR("{'phase':'InProgress'}") "]", 0, CW_NAC_SYNC,
     "{'phase':'Created','conditions':[" RACC(
         T0) "," RQUEUED "]," RREF
             ",'status':{'phase':'InProgress'}},'queueInfo':{'estimatedQueuePosition':2}}",
     NULL, NULL, ""},
    {"being deleted: the Velero Restore goes first",
     NAR(",'finalizers':[" RF "]" DELETED, RSPEC, "{'phase':'Created'," RREF "}}"), NULL, NULL,
     VR("{}"), "[]", 0, CW_NAC_DETACHING,
     "{'phase':'Deleting'," RREF "},'conditions':[" COND("Deleting", "True", "DeletionPending",
                                                         "restore accepted for deletion", T1) "]}",
     NULL, NULL, "backup wait"},
    {"then the finalizer",
     NAR(",'finalizers':[" RF "]" DELETED, RSPEC, "{'phase':'Deleting'," RREF "}}"), NULL, NULL,
     NULL, "[]", 0, CW_NAC_RELEASE, NULL, "[]", NULL, ""},
};

static void test_restore_transitions(void **state)
{
    (void)state;
    for (size_t i = 0; i < 2 * N(nar_cases); i++) {
        const nar_case *c = &nar_cases[i % N(nar_cases)];
        json_object *given = tjson(c->nar), *nab = tjson(c->nab), *vr = tjson(c->restore);
        char *refused = NULL;
        json_object *nar = i < N(nar_cases) ? json_object_get(given)
                                            : through_cache(&cw_nac_restore_kind, given, &refused);
        assert_null(refused);
        json_object_put(given);
        json_object *all = tjson(c->restores), *vb = tjson(c->backup);
        cw_narctl_config cfg = {.oadp_namespace = "openshift-adp"};
        if (c->liberal)
            cfg.policy = (cw_nac_policy){.allow_restore_init_hooks = 1,
                                         .allowed_resource_policies = &allowed};
        cw_nac_input in = {.obj = nar,
                           .velero = vr,
                           .all = all,
                           .nab = nab,
                           .backup = vb,
                           .now = T1,
                           .uuid = UUID};
        cw_nac_actions a;
        cw_error err;
        cw_nac_actions_init(&a);
        if (cw_narctl_decide(&in, &cfg, &a, &err) != CW_OK)
            fail_msg("%s: %s", c->label, err.message);
        expect_actions(&a, c->label, c->outcome, c->status, c->finalizers, c->create, c->flags);
        cw_nac_actions_free(&a);
        json_object_put(nar);
        json_object_put(nab);
        json_object_put(vr);
        json_object_put(all);
        json_object_put(vb);
    }
}

/* ---- the API server refused the Velero object (422) ---- */

#define REFUSED_RAW                                                                                \
    "Backup.velero.io \"x\" is invalid: spec.ttl: Invalid value: \"integer\": spec.ttl in body "   \
    "must be of type string"

typedef struct {
    const char *label, *obj, *message;
    int restore;
    const char *status;
} refused_case;

static const refused_case refused_cases[] = {
    {"the Status message after kube's status line, the generation recorded, the nacuuid dropped",
     NAB(",'generation':2" FIN, "{'backupSpec':{'ttl':3}}", ACCEPTED),
     "POST https://10.0.0.1:6443/apis/velero.io/v1/namespaces/openshift-adp/backups: 422 "
     "Unprocessable Entity: " REFUSED_RAW,
     0,
     "{'phase':'BackingOff','conditions':[{'type':'Accepted','status':'False','reason':"
     "'InvalidBackupSpec','message':'" REFUSED_MSG "','lastTransitionTime':'" T1
     "','observedGeneration':2}]}"},
    {"a message without the status line is taken whole", NAB(",'generation':7" FIN, SPEC, ACCEPTED),
     "the name is invalid", 0,
     "{'phase':'BackingOff','conditions':[{'type':'Accepted','status':'False','reason':"
     "'InvalidBackupSpec','message':'the name is invalid','lastTransitionTime':'" T1
     "','observedGeneration':7}]}"},
    {"no message at all", NAB(",'generation':7" FIN, SPEC, ACCEPTED), "", 0,
     "{'phase':'BackingOff','conditions':[{'type':'Accepted','status':'False','reason':"
     "'InvalidBackupSpec','message':'the API server refused the Velero Backup',"
     "'lastTransitionTime':'" T1 "','observedGeneration':7}]}"},
    {"bytes that are not UTF-8 become '?'", NAB(",'generation':7" FIN, SPEC, ACCEPTED),
     "x: 422 Unprocessable Entity: caf\xc3\xa9 \xc3(", 0,
     "{'phase':'BackingOff','conditions':[{'type':'Accepted','status':'False','reason':"
     "'InvalidBackupSpec','message':'caf\xc3\xa9 ?(','lastTransitionTime':'" T1
     "','observedGeneration':7}]}"},
    {"a NonAdminRestore", NAR(",'generation':4,'finalizers':[" RF "]", RSPEC, RACCEPTED),
     "POST u: 422 Unprocessable Entity: Restore.velero.io is invalid", 1,
     "{'phase':'BackingOff','conditions':[{'type':'Accepted','status':'False','reason':"
     "'InvalidRestoreSpec','message':'Restore.velero.io is invalid','lastTransitionTime':'" T1
     "','observedGeneration':4}]}"},
};

static int decide_kind(int restore, const cw_nac_input *in, cw_nac_actions *a, cw_error *err)
{
    if (restore) {
        cw_narctl_config cfg = {.oadp_namespace = "openshift-adp"};
        return cw_narctl_decide(in, &cfg, a, err);
    }
    cw_nabctl_config cfg = {.oadp_namespace = "openshift-adp"};
    return cw_nabctl_decide(in, &cfg, a, err);
}

/* The refusal written, the object decided again: it stays until metadata.generation moves; then
 * it is accepted with a new nacuuid. */
static void test_velero_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(refused_cases); i++) {
        const refused_case *c = &refused_cases[i];
        const cw_nac_kind *k = c->restore ? &cw_nac_restore_kind : &cw_nac_backup_kind;
        json_object *obj = tjson(c->obj), *nab = tjson(NAB_READY), *vb = tjson(VBK);
        cw_nac_input in = {.obj = obj, .nab = nab, .backup = vb, .now = T1, .uuid = UUID};
        cw_nac_actions a, b;
        cw_error err;
        cw_nac_actions_init(&a);
        cw_nac_actions_init(&b);
        if (cw_nac_refused(k, &in, c->message, &a, &err) != CW_OK)
            fail_msg("%s: %s", c->label, err.message);
        if (a.outcome != CW_NAC_REFUSED || *a.nacuuid)
            fail_msg("%s: outcome %s, nacuuid \"%s\"", c->label, cw_nac_outcome_name(a.outcome),
                     a.nacuuid);
        expect_json(a.status, c->status, "status", c->label);
        json_object_object_add(obj, "status", json_object_get(a.status));
        if (decide_kind(c->restore, &in, &b, &err) != CW_OK)
            fail_msg("%s (again): %s", c->label, err.message);
        if (b.outcome != CW_NAC_INVALID || b.status || b.create || b.finalizers)
            fail_msg("%s (again): outcome %s, something written", c->label,
                     cw_nac_outcome_name(b.outcome));
        cw_nac_actions_free(&b);
        json_object *meta = json_object_object_get(obj, "metadata");
        json_object_object_add(
            meta, "generation",
            json_object_new_int64(
                json_object_get_int64(json_object_object_get(meta, "generation")) + 1));
        if (decide_kind(c->restore, &in, &b, &err) != CW_OK)
            fail_msg("%s (edited): %s", c->label, err.message);
        if (b.outcome != CW_NAC_ACCEPTED || strcmp(b.nacuuid, c->restore ? RNAC : NAC))
            fail_msg("%s (edited): outcome %s, nacuuid \"%s\"", c->label,
                     cw_nac_outcome_name(b.outcome), b.nacuuid);
        cw_nac_actions_free(&b);
        cw_nac_actions_free(&a);
        json_object_put(obj);
        json_object_put(nab);
        json_object_put(vb);
    }
}

/* ---- what the cache keeps (controller/nonadmin_keep.h) ---- */

/* A NonAdminBackup shop/<name> in phase New whose spec.backupSpec is {"ttl":"xxx…"} of exactly
 * `bytes` bytes of compact JSON (10 of them the braces, key and quotes). */
static json_object *sized_nab(const char *kind, const char *name, const char *phase, size_t bytes)
{
    const char *spec = strcmp(kind, "NonAdminBackup") ? "restoreSpec" : "backupSpec";
    json_object *o = json_object_new_object(), *meta = json_object_new_object();
    json_object *sp = json_object_new_object(), *big = json_object_new_object();
    json_object *st = json_object_new_object();
    char *x = malloc(bytes - 10 + 1);
    memset(x, 'x', bytes - 10);
    x[bytes - 10] = '\0';
    json_object_object_add(o, "apiVersion", json_object_new_string("oadp.openshift.io/v1alpha1"));
    json_object_object_add(o, "kind", json_object_new_string(kind));
    json_object_object_add(meta, "name", json_object_new_string(name));
    json_object_object_add(meta, "namespace", json_object_new_string("shop"));
    json_object_object_add(meta, "uid", json_object_new_string("u1"));
    json_object_object_add(meta, "resourceVersion", json_object_new_string("5"));
    json_object_object_add(o, "metadata", meta);
    json_object_object_add(big, "ttl", json_object_new_string(x));
    json_object_object_add(sp, spec, big);
    json_object_object_add(o, "spec", sp);
    json_object_object_add(st, "phase", json_object_new_string(phase));
    json_object_object_add(o, "status", st);
    free(x);
    assert_int_equal(strlen(cw_json_compact(big)), bytes);
    return o;
}

#define TOO_LARGE(what, n)                                                                         \
    what " is too large: " n " bytes, the limit is 16384 bytes (compact JSON)"
#define ACCEPTED_NEW "{'phase':'New','conditions':[" ACC(T1) "]," VBREF "}}"

typedef struct {
    const char *label;
    size_t bytes;
    cw_nac_outcome outcome;
    const char *status;
} size_case;

static const size_case size_cases[] = {
    {"limit - 1: kept, accepted", CW_NAC_SPEC_MAX - 1, CW_NAC_ACCEPTED, ACCEPTED_NEW},
    {"the limit: kept, accepted", CW_NAC_SPEC_MAX, CW_NAC_ACCEPTED, ACCEPTED_NEW},
    {"limit + 1: BackingOff with the limit", CW_NAC_SPEC_MAX + 1, CW_NAC_INVALID,
     "{'phase':'BackingOff','conditions':[" COND(
         "Accepted", "False", "InvalidBackupSpec",
         TOO_LARGE("NonAdminBackup spec.backupSpec", "16385"), T1) "]}"},
    {"the attack's size (1.36 MB)", 1360000, CW_NAC_INVALID,
     "{'phase':'BackingOff','conditions':[" COND(
         "Accepted", "False", "InvalidBackupSpec",
         TOO_LARGE("NonAdminBackup spec.backupSpec", "1360000"), T1) "]}"},
};

/* The size limit's boundary: the decision through the cache, its status exact; a spec over the
 * limit leaves no copy of itself in the cache. */
static void test_size_limit(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(size_cases); i++) {
        const size_case *c = &size_cases[i];
        json_object *given = sized_nab("NonAdminBackup", "daily", "New", c->bytes), *obj = NULL;
        json_object *nab = informer_view(&cw_nac_backup_kind, given);
        cw_nac_share sh;
        cw_nac_actions a;
        cw_error err;
        char *refused = NULL;
        /* Over the limit, the informer never parsed it: its length came instead. */
        assert_int_equal(json_object_get_type(json_object_object_get(
                             json_object_object_get(nab, "spec"), "backupSpec")),
                         c->bytes > CW_NAC_SPEC_MAX ? json_type_int : json_type_string);
        json_object_put(given);
        assert_int_equal(cw_nac_share_init(&sh, &err), CW_OK);
        json_object *kept = cw_nac_keep(&cw_nac_backup_kind, nab, &sh);
        size_t kept_len = strlen(cw_json_compact(kept));
        if (c->bytes > CW_NAC_SPEC_MAX ? kept_len > 400 : kept_len < c->bytes)
            fail_msg("%s: the cache keeps %zu bytes", c->label, kept_len);
        assert_int_equal(cw_nac_share_held(&sh, "shop"), c->bytes > CW_NAC_SPEC_MAX ? 0 : c->bytes);
        assert_int_equal(cw_nac_kept_read(&cw_nac_backup_kind, kept, &obj, &refused, &err), CW_OK);
        cw_nabctl_config cfg = {.oadp_namespace = "openshift-adp"};
        cw_nac_input in = {.obj = obj, .all = NULL, .refused = refused, .now = T1, .uuid = UUID};
        cw_nac_actions_init(&a);
        if (cw_nabctl_decide(&in, &cfg, &a, &err) != CW_OK)
            fail_msg("%s: %s", c->label, err.message);
        expect_actions(&a, c->label, c->outcome, c->status, NULL, NULL, "");
        cw_nac_actions_free(&a);
        free(refused);
        json_object_put(obj);
        json_object_put(kept);
        json_object_put(nab);
        cw_nac_share_free(&sh);
    }
}

/* A NonAdminRestore over the limit: the same, with its own words. */
static void test_size_limit_restore(void **state)
{
    (void)state;
    json_object *nar = sized_nab("NonAdminRestore", "undo", "New", CW_NAC_SPEC_MAX + 1), *obj;
    cw_nac_share sh;
    cw_error err;
    char *refused = NULL;
    assert_int_equal(cw_nac_share_init(&sh, &err), CW_OK);
    json_object *kept = cw_nac_keep(&cw_nac_restore_kind, nar, &sh);
    assert_int_equal(cw_nac_kept_read(&cw_nac_restore_kind, kept, &obj, &refused, &err), CW_OK);
    assert_string_equal(refused, TOO_LARGE("NonAdminRestore spec.restoreSpec", "16385"));
    free(refused);
    json_object_put(obj);
    json_object_put(kept);
    json_object_put(nar);
    cw_nac_share_free(&sh);
}

#define SHARE_MSG                                                                                  \
    "NonAdminBackup spec.backupSpec is not accepted: the NonAdminBackups of namespace shop "       \
    "waiting to be created already hold 2097152 bytes of specs, its share is 2097152 bytes; edit " \
    "this one again once fewer are waiting"

/* A namespace's share: 128 specs at the limit fill it, the 129th is refused with the message; a
 * Created object and another namespace hold nothing of it; a deleted one gives its bytes back. */
static void test_share(void **state)
{
    (void)state;
    cw_nac_share sh;
    cw_error err;
    char name[32], *refused = NULL;
    json_object *kept, *obj;
    assert_int_equal(cw_nac_share_init(&sh, &err), CW_OK);
    for (int i = 0; i < 128; i++) {
        snprintf(name, sizeof(name), "b%d", i);
        json_object *nab = sized_nab("NonAdminBackup", name, "New", CW_NAC_SPEC_MAX);
        kept = cw_nac_keep(&cw_nac_backup_kind, nab, &sh);
        /* Kept again (a resync, a status write): counted once. */
        json_object_put(cw_nac_keep(&cw_nac_backup_kind, nab, &sh));
        json_object_put(kept);
        json_object_put(nab);
    }
    assert_int_equal(cw_nac_share_held(&sh, "shop"), CW_NAC_NS_SPEC_MAX);
    json_object *nab = sized_nab("NonAdminBackup", "b128", "New", CW_NAC_SPEC_MAX);
    kept = cw_nac_keep(&cw_nac_backup_kind, nab, &sh);
    assert_int_equal(cw_nac_kept_read(&cw_nac_backup_kind, kept, &obj, &refused, &err), CW_OK);
    assert_string_equal(refused, SHARE_MSG);
    free(refused);
    json_object_put(obj);
    json_object_put(kept);
    /* Created: its spec is read no more, its bytes go back. */
    json_object *created = sized_nab("NonAdminBackup", "b0", "Created", CW_NAC_SPEC_MAX);
    json_object_put(cw_nac_keep(&cw_nac_backup_kind, created, &sh));
    assert_int_equal(cw_nac_share_held(&sh, "shop"), CW_NAC_NS_SPEC_MAX - CW_NAC_SPEC_MAX);
    cw_nac_share_release(&sh, "shop/b1");
    assert_int_equal(cw_nac_share_held(&sh, "shop"), CW_NAC_NS_SPEC_MAX - 2 * CW_NAC_SPEC_MAX);
    /* The refused one edited again: kept now. */
    kept = cw_nac_keep(&cw_nac_backup_kind, nab, &sh);
    assert_int_equal(cw_nac_kept_read(&cw_nac_backup_kind, kept, &obj, &refused, &err), CW_OK);
    assert_null(refused);
    assert_int_equal(cw_nac_share_held(&sh, "shop"), CW_NAC_NS_SPEC_MAX - CW_NAC_SPEC_MAX);
    assert_int_equal(cw_nac_share_held(&sh, "bank"), 0);
    json_object_put(obj);
    json_object_put(kept);
    json_object_put(created);
    json_object_put(nab);
    cw_nac_share_free(&sh);
}

/* Exactly what the cache keeps of a NonAdminBackup as the API server sends it. */
static const struct {
    const char *label, *given, *kept;
} keep_cases[] = {
    {"waiting: identity, deletion, finalizers, status, spec's small members, backupSpec as text",
     "{'apiVersion':'oadp.openshift.io/v1alpha1','kind':'NonAdminBackup','metadata':{'name':"
     "'daily','namespace':'shop','uid':'u1','resourceVersion':'5','generation':2,"
     "'creationTimestamp':'" T0 "','labels':{'a':'b'},'annotations':{'c':'d'},'finalizers':[" F
     "],'managedFields':[{'manager':'kubectl','operation':'Update'}]},'spec':{'backupSpec':{'ttl':"
     "'1h0m0s','hooks':{'resources':[{'name':'h','pre':[{'exec':{'command':['','']}}]}]}},"
     "'deleteBackup':false},'status':{'phase':'BackingOff'}}",
     "{'metadata':{'name':'daily','namespace':'shop','uid':'u1','resourceVersion':'5',"
     "'generation':2,'creationTimestamp':'" T0 "','finalizers':[" F "]},'spec':{'deleteBackup':"
     "false},'apiVersion':'oadp.openshift.io/v1alpha1','kind':'NonAdminBackup','status':{'phase':"
     "'BackingOff'},'cronwarden.io/"
     "spec':'{\\\"ttl\\\":\\\"1h0m0s\\\",\\\"hooks\\\":{\\\"resources\\\":"
     "[{\\\"name\\\":\\\"h\\\",\\\"pre\\\":[{\\\"exec\\\":{\\\"command\\\":[\\\"\\\",\\\"\\\"]}}]}]"
     "}}'}"},
    {"as the informer hands it over: the text as the API server sent it, kept as it is",
     NAB("", "{'backupSpec':'{\\'ttl\\':\\'1h0m0s\\'}'}", "{'phase':'New'}"),
     "{'metadata':{'name':'daily','namespace':'shop','uid':'u1','resourceVersion':'5'},'spec':{},"
     "'apiVersion':'oadp.openshift.io/v1alpha1','kind':'NonAdminBackup','status':{'phase':'New'},"
     "'cronwarden.io/spec':'{\\'ttl\\':\\'1h0m0s\\'}'}"},
    {"over the limit as the API server sent it (the informer left it unparsed): its length",
     NAB("", "{'backupSpec':1360000}", "{'phase':'New'}"),
     "{'metadata':{'name':'daily','namespace':'shop','uid':'u1','resourceVersion':'5'},'spec':{},"
     "'apiVersion':'oadp.openshift.io/v1alpha1','kind':'NonAdminBackup','status':{'phase':'New'},"
     "'cronwarden.io/spec-bytes':1360000}"},
    {"Created: the spec is read no more", NAB(FIN, SPEC, "{'phase':'Created'}"),
     "{'metadata':{'name':'daily','namespace':'shop','uid':'u1','resourceVersion':'5',"
     "'finalizers':[" F "]},'spec':{},'apiVersion':'oadp.openshift.io/v1alpha1','kind':"
     "'NonAdminBackup','status':{'phase':'Created'}}"},
    {"being deleted: neither", NAB(FIN DELETED, DEL_SPEC, "{'phase':'New'}"),
     "{'metadata':{'name':'daily','namespace':'shop','uid':'u1','resourceVersion':'5',"
     "'deletionTimestamp':'" T1 "','finalizers':[" F "]},'spec':{'deleteBackup':true},"
     "'apiVersion':'oadp.openshift.io/v1alpha1','kind':'NonAdminBackup','status':{'phase':'New'}}"},
};

static void test_keep_exact(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(keep_cases); i++) {
        cw_nac_share sh;
        cw_error err;
        json_object *given = tjson(keep_cases[i].given);
        assert_int_equal(cw_nac_share_init(&sh, &err), CW_OK);
        json_object *kept = cw_nac_keep(&cw_nac_backup_kind, given, &sh);
        expect_json(kept, keep_cases[i].kept, "kept", keep_cases[i].label);
        json_object_put(kept);
        json_object_put(given);
        cw_nac_share_free(&sh);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transitions),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_owns),
        cmocka_unit_test(test_restore_transitions),
        cmocka_unit_test(test_velero_refused),
        cmocka_unit_test(test_size_limit),
        cmocka_unit_test(test_size_limit_restore),
        cmocka_unit_test(test_share),
        cmocka_unit_test(test_keep_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
