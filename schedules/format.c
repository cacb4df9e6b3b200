/* Times and durations as the reports and the sentences of missed runs print them. */
#include "schedules/internal.h"

#include <stdio.h>

void cw_health_duration(int64_t s, char *out, size_t len)
{
    static const struct {
        int64_t secs;
        char unit;
    } units[] = {{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}};
    if (s < 0)
        s = 0;
    size_t i = 0;
    while (i + 1 < sizeof(units) / sizeof(units[0]) && s < units[i].secs)
        i++;
    int64_t big = s / units[i].secs, rest = i + 1 < sizeof(units) / sizeof(units[0])
                                                ? s % units[i].secs / units[i + 1].secs
                                                : 0;
    if (rest)
        snprintf(out, len, "%lld%c%lld%c", (long long)big, units[i].unit, (long long)rest,
                 units[i + 1].unit);
    else
        snprintf(out, len, "%lld%c", (long long)big, units[i].unit);
}

void cw_health_time_str(int64_t t, char *out, size_t len)
{
    if (t == CW_HEALTH_NONE || cw_tz_format_rfc3339(t, 0, out, len) != CW_OK)
        snprintf(out, len, "-");
}
