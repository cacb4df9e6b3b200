/* cronwarden cron: check cron expressions the way robfig/cron v3 (Longhorn, Velero) parses them
 * and print their next fire times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "cmd/cmd.h"
#include "cron/cron.h"
#include "lib/opts.h"
#include "cron/tz.h"

#define DIALECT                                                                                    \
    "The dialect is robfig/cron v3's ParseStandard, as used by Longhorn RecurringJobs and\n"       \
    "Velero <= 1.18: five fields (minute hour day-of-month month day-of-week), descriptors\n"      \
    "(@yearly @annually @monthly @weekly @daily @midnight @hourly, @every <Go duration>), and\n"   \
    "an optional TZ=<zone> or CRON_TZ=<zone> prefix. Put -- before an expression that starts\n"    \
    "with '-'. See docs/cron.md."

#define VALIDATE_SYNOPSIS "cronwarden cron validate [-o text|json] EXPR"
#define NEXT_SYNOPSIS     "cronwarden cron next [-n N] [--from RFC3339] [-o text|json] EXPR"

/* The first and last seconds RFC 3339 can write (0000-01-01T00:00:00Z, 9999-12-31T23:59:59Z). */
#define FIRST_RFC3339 (-62167219200LL)
#define LAST_RFC3339  253402300799LL

/* Process configuration: the options tables write here. */
static struct {
    long long count;
    char *from, *output;
} o;

static const cw_opt validate_opts[] = {
    CW_CMD_OPT_TEXT_JSON(&o.output),
};

static const cw_opt next_opts[] = {
    {.name = "count",
     .short_name = 'n',
     .type = CW_OPT_INT,
     .metavar = "N",
     .help = "how many fire times to print",
     .target = &o.count,
     .def = "5",
     .min = 1,
     .max = 10000,
     .no_env = 1},
    {.name = "from",
     .type = CW_OPT_STRING,
     .metavar = "RFC3339",
     .help = "start after this time, e.g. 2025-03-09T01:30:00-05:00 (default: now, in UTC)",
     .target = &o.from,
     .no_env = 1},
    CW_CMD_OPT_TEXT_JSON(&o.output),
};

static const cw_cmd_spec validate_spec = {
    .name = "cron validate",
    .synopsis = VALIDATE_SYNOPSIS,
    .summary = "Checks EXPR and prints \"valid\", or robfig's error message on stderr.\n\n" DIALECT,
    .opts = validate_opts,
    .nopts = sizeof(validate_opts) / sizeof(validate_opts[0]),
    .footer = "JSON: {\"expression\":EXPR,\"valid\":BOOL[,\"error\":MESSAGE]} on stdout.\n"
              "Exit codes: 0 valid, 1 invalid, 2 usage error.\n"
              "Example: cronwarden cron validate 'CRON_TZ=Europe/Berlin 0 2 * * MON-FRI'",
    .min_args = 1,
    .max_args = 1,
};

static const cw_cmd_spec next_spec = {
    .name = "cron next",
    .synopsis = NEXT_SYNOPSIS,
    .summary =
        "Prints the next N fire times of EXPR after --from, one RFC 3339 time per line, in the\n"
        "offset of --from. Without a TZ=/CRON_TZ= prefix the schedule runs in that offset, as\n"
        "robfig runs it in the zone of the time it is given. \"never\" ends the list when the\n"
        "schedule does not fire again within five years (robfig's horizon), e.g. 0 0 30 2 "
        "*.\n\n" DIALECT,
    .opts = next_opts,
    .nopts = sizeof(next_opts) / sizeof(next_opts[0]),
    .footer =
        "JSON: {\"expression\":EXPR,\"from\":TIME,\"next\":[TIME...],\"never\":BOOL} on stdout; "
        "\"hang\":true\nis added where robfig's own Next would loop forever (a skipped local "
        "day).\n"
        "Exit codes: 0 success, 1 invalid expression, 2 usage error (bad flag or --from).\n"
        "Example: cronwarden cron next -n 3 --from 2024-11-03T00:00:00-04:00 "
        "'TZ=America/New_York 30 1 * * *'",
    .min_args = 1,
    .max_args = 1,
};

/* Messages quote the expression raw, as robfig does; control bytes could drive the terminal,
 * so text output shows them as \xHH. */
static void print_escaped(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
    fputc('\n', f);
}

static void print_json(json_object *obj)
{
    puts(json_object_to_json_string_ext(obj,
                                        JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

static int parse_args(const cw_cmd_spec *spec, int argc, char **argv, cw_strlist *args, int *code)
{
    cw_error err;
    cw_error_init(&err);
    int rc = cw_opts_parse(spec, argc, argv, args, stdout, &err);
    if (rc == 1) {
        *code = CW_EXIT_OK;
        return -1;
    }
    if (rc != CW_OK) {
        *code = cw_cmd_usage_error(spec->name, err.message);
        return -1;
    }
    return 0;
}

static int cmd_validate(int argc, char **argv)
{
    int code = CW_EXIT_FAIL;
    cw_strlist args;
    cw_tzdb db;
    cw_error err;
    cw_cron c;
    json_object *obj = NULL;
    int have_db = 0;

    cw_strlist_init(&args);
    cw_error_init(&err);
    if (parse_args(&validate_spec, argc, argv, &args, &code) != 0)
        goto done;
    if (cw_tzdb_init(&db, NULL, &err) != CW_OK) {
        fprintf(stderr, "cronwarden cron: %s\n", err.message);
        goto done;
    }
    have_db = 1;
    const char *expr = args.items[0];
    int ok = cw_cron_parse(expr, &db, &c, &err) == CW_OK;
    if (strcmp(o.output, "json") == 0) {
        obj = json_object_new_object();
        json_object_object_add(obj, "expression", json_object_new_string(expr));
        json_object_object_add(obj, "valid", json_object_new_boolean(ok));
        if (!ok)
            json_object_object_add(obj, "error", json_object_new_string(err.message));
        print_json(obj);
    } else if (ok) {
        puts("valid");
    } else {
        print_escaped(stderr, err.message);
    }
    code = ok ? CW_EXIT_OK : CW_EXIT_FAIL;
done:
    json_object_put(obj);
    if (have_db)
        cw_tzdb_free(&db);
    cw_strlist_free(&args);
    cw_opts_free(&validate_spec);
    return code;
}

static int cmd_next(int argc, char **argv)
{
    int code = CW_EXIT_FAIL, have_db = 0, rc = 0;
    cw_strlist args;
    cw_tzdb db;
    cw_error err;
    cw_cron c;
    json_object *obj = NULL, *list = NULL;
    int64_t t;
    int32_t off = 0;
    char buf[CW_TZ_RFC3339_MAX];

    cw_strlist_init(&args);
    cw_error_init(&err);
    if (parse_args(&next_spec, argc, argv, &args, &code) != 0)
        goto done;
    if (o.from) {
        if (cw_tz_parse_rfc3339(o.from, &t, &off, &err) != CW_OK) {
            code = cw_cmd_usage_error(next_spec.name, err.message);
            goto done;
        }
        /* robfig's answers are Go times; outside years 0000-9999 (in UTC) they have no RFC 3339
         * form, so such a --from is refused rather than answered with "never". */
        if (t < FIRST_RFC3339 || t > LAST_RFC3339) {
            code = cw_cmd_usage_error(next_spec.name,
                                      "--from must lie within the years 0000-9999 in UTC");
            goto done;
        }
    } else {
        t = (int64_t)time(NULL);
    }
    if (cw_tzdb_init(&db, NULL, &err) != CW_OK) {
        fprintf(stderr, "cronwarden cron: %s\n", err.message);
        goto done;
    }
    have_db = 1;
    const char *expr = args.items[0];
    if (cw_cron_parse(expr, &db, &c, &err) != CW_OK) {
        print_escaped(stderr, err.message);
        goto done;
    }
    int json = strcmp(o.output, "json") == 0;
    if (json) {
        obj = json_object_new_object();
        list = json_object_new_array();
        json_object_object_add(obj, "expression", json_object_new_string(expr));
        cw_tz_format_rfc3339(t, off, buf, sizeof(buf));
        json_object_object_add(obj, "from", json_object_new_string(buf));
        json_object_object_add(obj, "next", list);
    }
    long long found = 0;
    for (; found < o.count; found++) {
        rc = cw_cron_next_checked(&c, t, off, &t);
        if (rc == CW_EINVAL ||
            (rc == 1 && cw_tz_format_rfc3339(t, off, buf, sizeof(buf)) != CW_OK)) {
            /* robfig would answer with a time past year 9999: true, but not writable in RFC 3339,
             * and "never" would be wrong */
            fprintf(stderr, "cronwarden cron: the next fire time is after 9999-12-31T23:59:59Z, "
                            "which RFC 3339 cannot write; use an earlier --from\n");
            code = CW_EXIT_FAIL;
            goto done;
        }
        if (rc != 1)
            break;
        if (json)
            json_object_array_add(list, json_object_new_string(buf));
        else
            puts(buf);
    }
    if (rc == CW_ELIMIT)
        fprintf(stderr,
                "cronwarden cron: robfig/cron's Next never returns here: a whole local day is "
                "skipped before the next match, and Longhorn or Velero would stop scheduling\n");
    if (json) {
        json_object_object_add(obj, "never", json_object_new_boolean(found < o.count));
        if (rc == CW_ELIMIT)
            json_object_object_add(obj, "hang", json_object_new_boolean(1));
        print_json(obj);
    } else if (found < o.count) {
        puts("never");
    }
    code = CW_EXIT_OK;
done:
    json_object_put(obj);
    if (have_db)
        cw_tzdb_free(&db);
    cw_strlist_free(&args);
    cw_opts_free(&next_spec);
    return code;
}

static int cmd_validate(int argc, char **argv);
static int cmd_next(int argc, char **argv);

/* The subcommands: cron's usage, its dispatch and its lines in `cronwarden --help`. */
const cw_cmd_entry cw_cmd_cron_commands[] = {
    {"validate", cmd_validate, VALIDATE_SYNOPSIS, NULL, NULL},
    {"next", cmd_next, NEXT_SYNOPSIS, NULL, NULL},
    {"audit", cw_cmd_cron_audit, CW_CMD_CRON_AUDIT_SYNOPSIS,
     "audit the schedule load of a cluster: the busiest minutes and who makes them", NULL},
    {"status", cw_cmd_cron_status, CW_CMD_CRON_STATUS_SYNOPSIS,
     "tell whether each scheduled backup ran and every volume is protected", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* The names of the subcommands joined by sep, the last by last ("validate, next or audit"). */
static const char *names(const char *sep, const char *last, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; cw_cmd_cron_commands[i].name && used < len; i++) {
        const char *s = i == 0 ? "" : cw_cmd_cron_commands[i + 1].name ? sep : last;
        int n = snprintf(buf + used, len - used, "%s%s", s, cw_cmd_cron_commands[i].name);
        used += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

static void usage(FILE *out)
{
    char list[128];
    for (size_t i = 0; cw_cmd_cron_commands[i].name; i++)
        fprintf(out, "%s%s\n", i ? "       " : "Usage: ", cw_cmd_cron_commands[i].synopsis);
    fprintf(out,
            "\nValidates cron expressions, prints their next fire times, audits the load of "
            "every\nschedule in a cluster, and tells whether each scheduled backup ran and "
            "every volume\nis protected.\n\n" DIALECT "\n\n"
            "Run 'cronwarden cron <%s> --help' for the flags.\n"
            "Exit codes: 0 success, 1 invalid expression (audit: a step above "
            "--max-starts; status:\nsomething unhealthy), 2 usage error.\n",
            names("|", "|", list, sizeof(list)));
}

int cw_cmd_cron(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CW_EXIT_USAGE;
    }
    if (cw_cmd_is_help(argv[1])) {
        usage(stdout);
        return CW_EXIT_OK;
    }
    const cw_cmd_entry *e = cw_cmd_find(cw_cmd_cron_commands, argv[1]);
    if (e)
        return e->run(argc - 1, argv + 1);
    char msg[512], list[128];
    snprintf(msg, sizeof(msg), "unknown subcommand '%.200s' (%s)", argv[1],
             names(", ", " or ", list, sizeof(list)));
    return cw_cmd_usage_error("cron", msg);
}
