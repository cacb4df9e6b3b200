/* Offline planning throughput and memory against the parse-only floor (issue: 100k volumes in
 * under 3 s and 1 GiB, within 2x of json-c parsing the same file).
 *   bench_migrate_offline [N ...]       generate, measure, print the table (default 10000 100000)
 *   bench_migrate_offline parse FILE    child: json-c parses the whole file (the floor)
 *   bench_migrate_offline plan FILE     child: load + plan + finish, as `migrate --from-file` does
 * Each figure is the median of 3 runs in a fresh process (peak RSS from wait4).
 * CW_BENCH_BASELINE=BIN: the whole CLI of BIN (an older build) and of this build, 3 alternating
 * rounds, min / median / max of each and their ratio. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_util.h"
#include "defaults/policy.h"
#include "cron/tz.h"
#include "lib/yaml.h"
#include "kube/manifest.h"
#include "migrate/plan.h"

static int child_parse(const char *path)
{
    char *data;
    size_t len;
    cw_error err;
    cw_error_init(&err);
    if (cw_file_read(path, &data, &len, &err) != CW_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    json_tokener *tok = json_tokener_new();
    json_object *o = json_tokener_parse_ex(tok, data, (int)len);
    int ok = o != NULL;
    json_object_put(o);
    json_tokener_free(tok);
    free(data);
    return ok ? 0 : 1;
}

static int feed(void *ud, const cw_load_unit *u, cw_error *err)
{
    return cw_plan_add(ud, u->obj, NULL, err);
}

static int child_plan(const char *path)
{
    cw_error err;
    cw_error_init(&err);
    cw_tzdb tz;
    cw_policy_config pol;
    cw_plan plan;
    if (cw_tzdb_init(&tz, NULL, &err) != CW_OK || cw_policy_config_init(&pol) != CW_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    pol.tzdb = &tz;
    cw_plan_config cfg = {.scheme = CW_NAMES_XXH32,
                          .namespace = "longhorn-system",
                          .policy = &pol,
                          .default_group = 1,
                          .scratch_dir = ""}; /* as cmd/migrate.c offline */
    int rc = cw_plan_init(&plan, &cfg, &err);
    if (rc == CW_OK)
        rc = cw_load_file(path, feed, &plan, &err);
    if (rc == CW_OK)
        rc = cw_plan_finish(&plan, &err);
    if (rc != CW_OK)
        fprintf(stderr, "%s\n", err.message);
    else
        fprintf(stderr, "planned %zu volumes, %zu distinct jobs\n", plan.scanned_volumes,
                plan.jobs.len);
    cw_plan_free(&plan);
    cw_policy_config_free(&pol);
    cw_tzdb_free(&tz);
    return rc == CW_OK ? 0 : 1;
}

static int cmp_child(const void *a, const void *b)
{
    double x = ((const cw_bench_child *)a)->seconds, y = ((const cw_bench_child *)b)->seconds;
    return x < y ? -1 : x > y;
}

static cw_bench_child median_of_3(char *const argv[])
{
    cw_bench_child r[3];
    for (int i = 0; i < 3; i++) {
        if (cw_bench_run(argv, 1, &r[i]) != 0 || r[i].status < 0 || r[i].status > 3) {
            fprintf(stderr, "bench: %s failed (status %d)\n", argv[0], r[i].status);
            exit(1);
        }
    }
    qsort(r, 3, sizeof(r[0]), cmp_child);
    return r[1];
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "parse") == 0)
        return child_parse(argv[2]);
    if (argc == 3 && strcmp(argv[1], "plan") == 0)
        return child_plan(argv[2]);

    long sizes[8] = {10000, 100000};
    int nsizes = 2;
    if (argc > 1) {
        nsizes = 0;
        for (int i = 1; i < argc && nsizes < 8; i++)
            sizes[nsizes++] = atol(argv[i]);
    }
    const char *dir = getenv("CW_BENCH_DIR") ? getenv("CW_BENCH_DIR") : "/tmp/cronwarden-bench";
    mkdir(dir, 0755);
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[sl > 0 ? sl : 0] = '\0';

    printf(
        "offline migrate planning vs the json-c parse floor (median of 3, fresh process each)\n");
    printf("%8s %8s %10s %10s %10s %7s %12s %10s %10s %10s\n", "volumes", "file MB", "parse s",
           "plan s", "cli s", "plan/p", "volumes/s", "parse MiB", "plan MiB", "cli MiB");
    for (int s = 0; s < nsizes; s++) {
        char path[4200], gen[4200], nbuf[32];
        snprintf(path, sizeof(path), "%s/legacy-%ld.json", dir, sizes[s]);
        snprintf(nbuf, sizeof(nbuf), "%ld", sizes[s]);
        struct stat st;
        if (stat(path, &st) != 0) {
            snprintf(gen, sizeof(gen), "%s", CW_BENCH_GEN);
            char *gargv[] = {gen, nbuf, path, NULL};
            cw_bench_child g;
            if (cw_bench_run(gargv, 1, &g) != 0 || g.status != 0) {
                fprintf(stderr, "bench: generating %s failed\n", path);
                return 1;
            }
            stat(path, &st);
        }
        char *pargv[] = {self, "parse", path, NULL};
        char *largv[] = {self, "plan", path, NULL};
        char bin[] = CW_BENCH_CRONWARDEN;
        char *cargv[] = {bin, "migrate", "--from-file", path, "-o", "json", NULL};
        cw_bench_child p = median_of_3(pargv), l = median_of_3(largv), c = median_of_3(cargv);
        printf("%8ld %8.1f %10.3f %10.3f %10.3f %7.2f %12.0f %10.1f %10.1f %10.1f\n", sizes[s],
               (double)st.st_size / 1e6, p.seconds, l.seconds, c.seconds, l.seconds / p.seconds,
               (double)sizes[s] / l.seconds, p.max_rss_kib / 1024.0, l.max_rss_kib / 1024.0,
               c.max_rss_kib / 1024.0);
        fflush(stdout);
        const char *base = getenv("CW_BENCH_BASELINE");
        if (base && *base) {
            char bbin[4200];
            snprintf(bbin, sizeof(bbin), "%s", base);
            char *bargv[] = {bbin, "migrate", "--from-file", path, "-o", "json", NULL};
            double ts[2][3], rs[2][3], cs[2][3], ratio[3], cratio[3];
            for (int r = 0; r < 3; r++) {
                for (int k = 0; k < 2; k++) {
                    int which = (k + r) % 2; /* alternate who goes first */
                    cw_bench_child c2;
                    if (cw_bench_run(which ? bargv : cargv, 1, &c2) != 0 || c2.status < 0 ||
                        c2.status > 3) {
                        fprintf(stderr, "bench: %s failed\n", which ? bbin : bin);
                        return 1;
                    }
                    ts[which][r] = c2.seconds;
                    rs[which][r] = c2.max_rss_kib / 1024.0;
                    cs[which][r] = c2.cpu_seconds;
                }
                ratio[r] = ts[1][r] / ts[0][r];
                cratio[r] = cs[1][r] / cs[0][r];
            }
            const char *who[2] = {"this build", "baseline"};
            for (int k = 0; k < 2; k++) {
                double lo, md, hi, rlo, rmd, rhi, clo, cmd, chi;
                cw_bench_spread(ts[k], 3, &lo, &md, &hi);
                cw_bench_spread(rs[k], 3, &rlo, &rmd, &rhi);
                cw_bench_spread(cs[k], 3, &clo, &cmd, &chi);
                printf("  cli %-10s %ld volumes: wall %.3f / %.3f / %.3f s, CPU %.3f / %.3f / "
                       "%.3f s, peak RSS %.1f / %.1f / %.1f MiB (min / median / max of 3)\n",
                       who[k], sizes[s], lo, md, hi, clo, cmd, chi, rlo, rmd, rhi);
            }
            double lo, md, hi, clo, cmd, chi;
            cw_bench_spread(ratio, 3, &lo, &md, &hi);
            cw_bench_spread(cratio, 3, &clo, &cmd, &chi);
            printf("  baseline / this build: wall %.2f / %.2f / %.2f, CPU %.2f / %.2f / %.2f\n", lo,
                   md, hi, clo, cmd, chi);
            fflush(stdout);
        }
    }
    printf("plan = load + plan + finish (what --from-file does before reporting);\n"
           "cli = the whole `cronwarden migrate --from-file FILE -o json` with its report.\n");
    return 0;
}
