#include "defaults/kinds.h"

#include <stddef.h>
#include <string.h>

#define ALL (CW_READ_STATUS | CW_READ_SCHEDHEALTH)

const cw_kind cw_kinds[CW_KIND_COUNT] = {
    {CW_KIND_RECURRINGJOB, "RecurringJob", "longhorn.io", "recurringjobs", CW_KIND_HOME, NULL,
     ALL | CW_READ_AUDIT},
    {CW_KIND_CRONJOB, "CronJob", "batch", "cronjobs", CW_KIND_HOME, NULL, ALL},
    {CW_KIND_JOB, "Job", "batch", "jobs", CW_KIND_HOME, NULL, ALL},
    {CW_KIND_VOLUME, "Volume", "longhorn.io", "volumes", CW_KIND_HOME, NULL, ALL | CW_READ_AUDIT},
    {CW_KIND_BACKUPVOLUME, "BackupVolume", "longhorn.io", "backupvolumes", CW_KIND_HOME, NULL, ALL},
    {CW_KIND_LHBACKUP, "Backup", "longhorn.io", "backups", CW_KIND_HOME, NULL, ALL},
    {CW_KIND_STORAGECLASS, "StorageClass", "storage.k8s.io", "storageclasses", CW_KIND_CLUSTER,
     NULL, CW_READ_AUDIT},
    {CW_KIND_SCHEDULE, "Schedule", "velero.io", "schedules", CW_KIND_VELERO, NULL,
     ALL | CW_READ_AUDIT},
    /* only a Schedule's Backups are runs (velero/schedule.h: CW_SCHEDULE_NAME_LABEL) */
    {CW_KIND_BACKUP, "Backup", "velero.io", "backups", CW_KIND_VELERO, "velero.io/schedule-name",
     ALL},
};

static const cw_kind *find(const char *group, size_t glen, const char *kind, unsigned reader)
{
    for (size_t i = 0; i < CW_KIND_COUNT; i++) {
        const cw_kind *k = &cw_kinds[i];
        if ((k->readers & reader) && strlen(k->group) == glen && !strncmp(k->group, group, glen) &&
            !strcmp(k->kind, kind))
            return k;
    }
    return NULL;
}

const cw_kind *cw_kind_of(const char *api_version, const char *kind, unsigned reader)
{
    const char *slash = api_version ? strchr(api_version, '/') : NULL;
    if (!slash || !kind)
        return NULL;
    return find(api_version, (size_t)(slash - api_version), kind, reader);
}

const cw_kind *cw_kind_of_group(const char *group, const char *kind, unsigned reader)
{
    return group && kind ? find(group, strlen(group), kind, reader) : NULL;
}
