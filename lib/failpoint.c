#include "lib/failpoint.h"
#include "lib/log.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_POINTS 16

typedef struct {
    char name[64];
    char action[256];
    long at; /* kill@N: the hit that kills */
    atomic_long hits;
} point;

/* Process configuration, parsed once from the environment. */
static point g_points[MAX_POINTS];
static int g_npoints;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void parse(void)
{
    const char *env = getenv("CRONWARDEN_FAILPOINTS");
    if (!env || !*env)
        return;
    char *copy = strdup(env), *save = NULL;
    for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && g_npoints < MAX_POINTS;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = '\0';
        point *p = &g_points[g_npoints++];
        strncpy(p->name, tok, sizeof(p->name) - 1);
        strncpy(p->action, eq + 1, sizeof(p->action) - 1);
        char *atsign = strncmp(p->action, "kill@", 5) == 0 ? p->action + 4 : NULL;
        p->at = atsign ? atol(atsign + 1) : 1;
        if (atsign)
            *atsign = '\0';
        atomic_init(&p->hits, 0);
    }
    free(copy);
}

void cw_failpoint(const char *name)
{
    pthread_once(&g_once, parse);
    for (int i = 0; i < g_npoints; i++) {
        point *p = &g_points[i];
        if (strcmp(p->name, name) != 0)
            continue;
        long hit = atomic_fetch_add(&p->hits, 1) + 1;
        if (strcmp(p->action, "kill") == 0 && hit == p->at) {
            cw_log(CW_LOG_WARN, "failpoint: killing this process", CW_LS("point", name));
            kill(getpid(), SIGKILL);
        } else if (strncmp(p->action, "wait:", 5) == 0) {
            struct stat st;
            if (hit == 1)
                cw_log(CW_LOG_WARN, "failpoint: waiting", CW_LS("point", name),
                       CW_LS("for", p->action + 5));
            while (stat(p->action + 5, &st) != 0)
                usleep(50 * 1000);
        }
    }
}
