/* `cronwarden cron status`'s reports (docs/status.md): what the schedule-health model
 * (schedules/health.h) judged, for a person (a table like `velero schedule get`, then what is
 * wrong) or as JSON. The command (cmd/cron_status.c) feeds the model and calls one of them. */
#ifndef CW_HEALTH_RENDER_H
#define CW_HEALTH_RENDER_H

#include <stdio.h>

#include "lib/error.h"
#include "schedules/health.h"

/* After cw_health_eval_all; volumes: one row per volume (--volumes). CW_EIO when writing
 * fails. */
int cw_health_render_text(const cw_health *h, int volumes, FILE *f, cw_error *err) CW_MUST_CHECK;
int cw_health_render_json(const cw_health *h, int volumes, FILE *f, cw_error *err) CW_MUST_CHECK;

#endif
