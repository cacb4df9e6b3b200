#include "migrate/progress.h"
#include "lib/log.h"
#include "lib/clock.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

void cw_progress_init(cw_progress *p, FILE *out, int tty)
{
    memset(p, 0, sizeof(*p));
    p->out = out;
    p->tty = tty >= 0 ? tty : isatty(fileno(out));
    pthread_mutex_init(&p->lock, NULL);
    atomic_init(&p->done, 0);
}

void cw_progress_free(cw_progress *p)
{
    pthread_mutex_destroy(&p->lock);
}

static void render(cw_progress *p, double t, int final)
{
    size_t done = atomic_load(&p->done);
    double el = t - p->start;
    double rate = el > 0 ? (double)done / el : 0;
    if (p->tty) {
        char eta[32] = "";
        if (!final && rate > 0 && p->total > done)
            snprintf(eta, sizeof(eta), " ETA %.0fs", (double)(p->total - done) / rate);
        fprintf(p->out, "\r\033[K%s %zu/%zu", p->phase, done, p->total);
        if (p->total)
            fprintf(p->out, " (%zu%%)", done * 100 / p->total);
        fprintf(p->out, " %.0f/s%s%s", rate, eta, final ? "\n" : "");
        fflush(p->out);
        p->line_open = !final;
        return;
    }
    cw_log(CW_LOG_INFO, final ? "phase done" : "progress", CW_LS("phase", p->phase),
           CW_LI("done", done), CW_LI("total", p->total), CW_LD("per_second", rate),
           CW_LD("seconds", el));
}

void cw_progress_phase(cw_progress *p, const char *phase, size_t total)
{
    pthread_mutex_lock(&p->lock);
    snprintf(p->phase, sizeof(p->phase), "%s", phase);
    p->total = total;
    atomic_store(&p->done, 0);
    p->start = p->last_print = cw_clock_mono();
    p->last_logged_pct = 0;
    pthread_mutex_unlock(&p->lock);
}

void cw_progress_add(cw_progress *p, size_t n)
{
    size_t done = atomic_fetch_add(&p->done, n) + n;
    double t = cw_clock_mono();
    if (pthread_mutex_trylock(&p->lock) != 0)
        return; /* another thread is printing; the next call catches up */
    size_t pct = p->total ? done * 100 / p->total : 0;
    if (p->tty ? t - p->last_print >= 0.1
               : (pct >= p->last_logged_pct + 5 || t - p->last_print >= 10)) {
        render(p, t, 0);
        p->last_print = t;
        p->last_logged_pct = pct - pct % 5;
    }
    pthread_mutex_unlock(&p->lock);
}

void cw_progress_done(cw_progress *p)
{
    pthread_mutex_lock(&p->lock);
    render(p, cw_clock_mono(), 1);
    pthread_mutex_unlock(&p->lock);
}
