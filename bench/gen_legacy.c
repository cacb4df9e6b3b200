/* Writes a `kubectl get -o json` style List of N Longhorn 1.1 volumes with legacy recurringJobs:
 * a realistic mix (0-4 jobs per volume from a pool of shared specs, some with labels, ~1 % with an
 * invalid job), about 2 KB per volume like the real objects. Deterministic for a given seed.
 *   gen_legacy N OUT.json [SEED] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)rng_state;
}

static const char *crons[] = {"0 */6 * * *",  "0 2 * * *",   "30 3 * * SUN",
                              "@hourly",      "0 0 * * *",   "*/30 * * * *",
                              "15 1 * * 1-5", "0 4 1 * *",   "CRON_TZ=Europe/Berlin 0 1 * * *",
                              "0 */2 * * *",  "45 23 * * *", "0 12 * * MON,THU"};
static const char *labels[] = {"null", "{}", "{\"tier\":\"gold\"}",
                               "{\"team\":\"payments\",\"tier\":\"gold\"}",
                               "{\"tier\":\"silver\",\"app\":\"db\"}"};

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: gen_legacy N OUT.json [SEED]\n");
        return 2;
    }
    long n = atol(argv[1]);
    rng_state = argc > 3 ? strtoull(argv[3], NULL, 10) : 88172645463325252ULL;
    FILE *f = fopen(argv[2], "w");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    fprintf(f, "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n");
    for (long i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof(name), "pvc-%08" PRIx32 "-%04x-%04x-%04x-%08" PRIx32 "%04x", rnd(),
                 rnd() & 0xffff, rnd() & 0xffff, rnd() & 0xffff, rnd(), rnd() & 0xffff);
        fprintf(
            f,
            "%s        {\n            \"apiVersion\": \"longhorn.io/v1beta1\",\n"
            "            \"kind\": \"Volume\",\n            \"metadata\": {\n"
            "                \"creationTimestamp\": \"2021-03-02T10:11:12Z\",\n"
            "                \"finalizers\": [\"longhorn.io\"],\n"
            "                \"generation\": %u,\n                \"name\": \"%s\",\n"
            "                \"namespace\": \"longhorn-system\",\n"
            "                \"resourceVersion\": \"%ld\",\n"
            "                \"uid\": \"%08" PRIx32 "-%04x-%04x-%04x-%08" PRIx32 "%04x\"\n"
            "            },\n            \"spec\": {\n                \"Standby\": false,\n"
            "                \"accessMode\": \"rwo\",\n                \"baseImage\": \"\",\n"
            "                \"dataLocality\": \"disabled\",\n                \"disableFrontend\": "
            "false,\n"
            "                \"diskSelector\": null,\n                \"encrypted\": false,\n"
            "                \"engineImage\": \"longhornio/longhorn-engine:v1.1.2\",\n"
            "                \"fromBackup\": \"\",\n                \"frontend\": \"blockdev\",\n"
            "                \"lastAttachedBy\": \"\",\n                \"migratable\": false,\n"
            "                \"migrationNodeID\": \"\",\n                \"nodeID\": "
            "\"worker-%u\",\n"
            "                \"nodeSelector\": null,\n                \"numberOfReplicas\": 3,\n"
            "                \"recurringJobs\": [",
            i ? ",\n" : "", rnd() % 40 + 1, name, 100000 + i, rnd(), rnd() & 0xffff, rnd() & 0xffff,
            rnd() & 0xffff, rnd(), rnd() & 0xffff, rnd() % 12);
        unsigned jobs = rnd() % 5;
        for (unsigned j = 0; j < jobs; j++) {
            unsigned c = rnd() % (sizeof(crons) / sizeof(crons[0]));
            unsigned l = rnd() % (sizeof(labels) / sizeof(labels[0]));
            int backup = rnd() % 2;
            int retain = 1 + (int)(rnd() % 14);
            const char *cron = crons[c];
            if (rnd() % 400 == 0)
                cron = "0 25 * * *"; /* an invalid job: the volume is left alone */
            fprintf(f,
                    "%s\n                    {\n                        \"cron\": \"%s\",\n"
                    "                        \"labels\": %s,\n"
                    "                        \"name\": \"job-%u\",\n"
                    "                        \"retain\": %d,\n"
                    "                        \"task\": \"%s\"\n                    }",
                    j ? "," : "", cron, labels[l], c, retain, backup ? "backup" : "snapshot");
        }
        fprintf(
            f,
            "%s],\n                \"replicaAutoBalance\": \"ignored\",\n"
            "                \"revisionCounterDisabled\": false,\n"
            "                \"size\": \"10737418240\",\n                \"staleReplicaTimeout\": "
            "30\n"
            "            },\n            \"status\": {\n                \"actualSize\": %u,\n"
            "                \"currentImage\": \"longhornio/longhorn-engine:v1.1.2\",\n"
            "                \"currentNodeID\": \"worker-1\",\n"
            "                \"expansionRequired\": false,\n"
            "                \"frontendDisabled\": false,\n                \"isStandby\": false,\n"
            "                \"kubernetesStatus\": {\n                    \"lastPVCRefAt\": \"\",\n"
            "                    \"lastPodRefAt\": \"\",\n                    \"namespace\": "
            "\"app-%u\",\n"
            "                    \"pvName\": \"%s\",\n                    \"pvStatus\": "
            "\"Bound\",\n"
            "                    \"pvcName\": \"data-%ld\",\n"
            "                    \"workloadsStatus\": [{\"podName\": \"app-%ld-0\", \"podStatus\": "
            "\"Running\", \"workloadName\": \"app-%ld\", \"workloadType\": \"StatefulSet\"}]\n"
            "                },\n                \"lastBackup\": \"\",\n"
            "                \"ownerID\": \"worker-1\",\n                \"robustness\": "
            "\"healthy\",\n"
            "                \"state\": \"attached\"\n            }\n        }",
            jobs ? "\n                " : "", rnd(), rnd() % 50, name, i, i, i);
    }
    fprintf(
        f, "\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\"resourceVersion\": \"\"}\n}\n");
    if (fclose(f) != 0) {
        perror(argv[2]);
        return 1;
    }
    return 0;
}
