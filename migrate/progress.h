/* Progress of a long phase: a live line on a terminal (phase, done/total, rate, ETA), otherwise
 * one log line per 5 % or 10 s. Safe to advance from several threads. */
#ifndef CW_PROGRESS_H
#define CW_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

typedef struct cw_progress {
    int tty;
    FILE *out;
    pthread_mutex_t lock;
    char phase[64];
    size_t total;
    atomic_size_t done;
    double start, last_print;
    size_t last_logged_pct;
    int line_open;
} cw_progress;

/* tty: -1 decides from isatty(fileno(out)). */
void cw_progress_init(cw_progress *p, FILE *out, int tty);
void cw_progress_free(cw_progress *p);
void cw_progress_phase(cw_progress *p, const char *phase, size_t total);
void cw_progress_add(cw_progress *p, size_t n);
/* Ends the phase with a final line. */
void cw_progress_done(cw_progress *p);

#endif
