/* Rows whose values are members of structs made at run time (lib/opts.h CW_OPT_IN): two parts of
 * a command, each with a config of its own, and a flag both read, kept once in a struct they
 * share, as the controller's reconcilers are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/opts.h"

typedef struct job {
    char *image;
    long long retain;
    double every;
    int suspend;
    cw_strlist tags;
} job;

typedef struct queue {
    long long concurrent;
    char *output;
} queue;

typedef struct shared {
    char *ns;
} shared;

#define SHARED_NS                                                                                  \
    {                                                                                              \
        .name = "namespace", .short_name = 'n', .type = CW_OPT_STRING, .metavar = "NS",            \
        .help = "where both look", CW_OPT_IN(2, shared, ns), .def = ""                             \
    }

static const cw_opt job_rows[] = {
    SHARED_NS,
    CW_OPT_STR_AT("image", "IMAGE", job, image, "busybox", "what jobs run"),
    CW_OPT_NUM_AT("retain", job, retain, "7", 1, 9, "runs kept"),
    CW_OPT_DUR_AT("every", job, every, "1m", "how often"),
    CW_OPT_FLAG_AT("suspend", job, suspend, "false", "run nothing"),
    {.name = "tag",
     .type = CW_OPT_LIST,
     .metavar = "TAG",
     .help = "labels",
     CW_OPT_IN(1, job, tags)},
};

static const cw_opt queue_rows[] = {
    CW_OPT_NUM_AT("concurrent", queue, concurrent, "1", 1, 100, "at once"),
    SHARED_NS,
    {.name = "output",
     .type = CW_OPT_ENUM,
     .help = "format",
     CW_OPT_IN(1, queue, output),
     .def = "text",
     .choices = "text|json"},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The command: its table, each row's base, and the structs they point into. */
typedef struct cmd {
    cw_opt rows[8];
    void *bases[8];
    cw_cmd_spec spec;
    job j;
    queue q;
    shared sh;
} cmd;

static void cmd_init(cmd *c)
{
    cw_error err;
    cw_error_init(&err);
    memset(c, 0, sizeof(*c));
    cw_strlist_init(&c->j.tags);
    void *jb[] = {&c->j, &c->sh}, *qb[] = {&c->q, &c->sh};
    size_t n = 0;
    assert_int_equal(
        cw_opts_append_at(c->rows, c->bases, N(c->rows), &n, job_rows, N(job_rows), jb, 2, &err),
        CW_OK);
    assert_int_equal(cw_opts_append_at(c->rows, c->bases, N(c->rows), &n, queue_rows, N(queue_rows),
                                       qb, 2, &err),
                     CW_OK);
    c->spec = (cw_cmd_spec){.name = "ctl",
                            .synopsis = "cronwarden ctl [flags]",
                            .summary = "Runs.",
                            .opts = c->rows,
                            .nopts = n,
                            .bases = c->bases,
                            .config_file = 1};
}

static int run(cmd *c, const char *line, cw_error *err)
{
    char *copy = strdup(line), *argv[32];
    int argc = 0;
    for (char *t = strtok(copy, " "); t && argc < 31; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    int rc = cw_opts_parse(&c->spec, argc, argv, NULL, stdout, err);
    free(copy);
    return rc;
}

static const char *joined(const cw_strlist *l, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < l->len; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "," : "", l->items[i]);
    return buf;
}

static void values_land_in_their_structs(void **state)
{
    (void)state;
    static const struct {
        const char *line, *env, *env_value, *yaml;
        const char *ns, *image;
        long long retain;
        double every;
        int suspend;
        const char *tags;
        long long concurrent;
        const char *output;
    } cases[] = {
        {"ctl", NULL, NULL, NULL, "", "busybox", 7, 60, 0, "", 1, "text"},
        {"ctl -n velero --image alpine --retain 3 --every 90s --suspend --tag a --tag b "
         "--concurrent 4 --output json",
         NULL, NULL, NULL, "velero", "alpine", 3, 90, 1, "a,b", 4, "json"},
        {"ctl", "CRONWARDEN_NAMESPACE", "from-env", NULL, "from-env", "busybox", 7, 60, 0, "", 1,
         "text"},
        {"ctl", "CRONWARDEN_TAG", "x,y", NULL, "", "busybox", 7, 60, 0, "x,y", 1, "text"},
        {"ctl", NULL, NULL, "namespace: from-file\nretain: 5\ntag: [p, q]\nconcurrent: 2\n",
         "from-file", "busybox", 5, 60, 0, "p,q", 2, "text"},
        /* flags over the environment over the file, row by row */
        {"ctl --retain 2", "CRONWARDEN_RETAIN", "6", "retain: 5\nsuspend: true\noutput: json\n", "",
         "busybox", 2, 60, 1, "", 1, "json"},
        {"ctl --tag only", "CRONWARDEN_CONCURRENT", "9", "tag: [p, q]\nconcurrent: 2\n", "",
         "busybox", 7, 60, 0, "only", 9, "text"},
    };
    char path[] = "/tmp/cw-opts-at-XXXXXX", line[512], tags[64];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    for (size_t i = 0; i < N(cases); i++) {
        cmd c;
        cw_error err;
        cw_error_init(&err);
        cmd_init(&c);
        snprintf(line, sizeof(line), "%s", cases[i].line);
        if (cases[i].yaml) {
            FILE *f = fopen(path, "w");
            fputs(cases[i].yaml, f);
            fclose(f);
            snprintf(line, sizeof(line), "%s --config %s", cases[i].line, path);
        }
        if (cases[i].env)
            setenv(cases[i].env, cases[i].env_value, 1);
        int rc = run(&c, line, &err);
        if (cases[i].env)
            unsetenv(cases[i].env);
        if (rc != CW_OK)
            fail_msg("case %zu: %s", i, err.message);
        assert_string_equal(c.sh.ns, cases[i].ns);
        assert_string_equal(c.j.image, cases[i].image);
        assert_int_equal(c.j.retain, cases[i].retain);
        assert_true(c.j.every == cases[i].every);
        assert_int_equal(c.j.suspend, cases[i].suspend);
        assert_string_equal(joined(&c.j.tags, tags, sizeof(tags)), cases[i].tags);
        assert_int_equal(c.q.concurrent, cases[i].concurrent);
        assert_string_equal(c.q.output, cases[i].output);
        /* free: what the parser allocated, in the structs, is gone */
        cw_opts_free(&c.spec);
        assert_null(c.sh.ns);
        assert_null(c.j.image);
        assert_null(c.q.output);
        assert_int_equal(c.j.tags.len, 0);
    }
    unlink(path);
}

static void bad_values_name_their_flag(void **state)
{
    (void)state;
    static const struct {
        const char *line, *msg;
    } cases[] = {
        {"ctl --retain 99", "--retain must be between 1 and 9, got 99"},
        {"ctl --output xml", "invalid value 'xml' for --output (choose text|json)"},
        {"ctl --every soon", "--every expects a duration like 30s, 10m or 1h30m, got 'soon'"},
    };
    for (size_t i = 0; i < N(cases); i++) {
        cmd c;
        cw_error err;
        cw_error_init(&err);
        cmd_init(&c);
        assert_int_equal(run(&c, cases[i].line, &err), CW_EUSAGE);
        assert_string_equal(err.message, cases[i].msg);
        cw_opts_free(&c.spec);
    }
}

/* The shared row is one row (listed once, set once for both); a row whose base is missing, or
 * the same name in another struct, is refused. */
static void tables_keep_a_shared_row_once(void **state)
{
    (void)state;
    cmd c;
    cw_error err;
    cw_error_init(&err);
    cmd_init(&c);
    const char *names[] = {"namespace", "image", "retain",     "every",
                           "suspend",   "tag",   "concurrent", "output"};
    assert_int_equal(c.spec.nopts, N(names));
    for (size_t i = 0; i < N(names); i++)
        assert_string_equal(c.rows[i].name, names[i]);
    assert_ptr_equal(cw_opts_value(&c.spec, 0), &c.sh.ns);
    assert_ptr_equal(cw_opts_value(&c.spec, 6), &c.q.concurrent);

    size_t n = c.spec.nopts;
    shared other;
    void *again[] = {&c.j, &c.sh}, *elsewhere[] = {&c.q, &other};
    assert_int_equal(
        cw_opts_append_at(c.rows, c.bases, N(c.rows), &n, job_rows, N(job_rows), again, 2, &err),
        CW_OK);
    assert_int_equal(n, N(names));
    assert_int_equal(cw_opts_append_at(c.rows, c.bases, N(c.rows), &n, queue_rows, N(queue_rows),
                                       elsewhere, 2, &err),
                     CW_EINVAL);
    assert_string_equal(err.message, "two different options are called --namespace");

    cw_opt out[8];
    n = 0;
    assert_int_equal(
        cw_opts_append_at(out, c.bases, N(out), &n, job_rows, N(job_rows), again, 1, &err),
        CW_EINVAL);
    assert_string_equal(err.message, "--namespace is kept in base 2, which is not given");
    n = 0;
    assert_int_equal(cw_opts_append(out, N(out), &n, job_rows + 1, 1, &err), CW_EINVAL);
    assert_string_equal(err.message, "--image is kept in base 1, which is not given");

    c.spec.bases = NULL;
    assert_int_equal(run(&c, "ctl", &err), CW_EINVAL);
    assert_string_equal(err.message, "--namespace is kept in base 2, which is not given");
}

static void help_lists_a_shared_row_once(void **state)
{
    (void)state;
    cmd c;
    char *text = NULL;
    size_t len = 0;
    cmd_init(&c);
    FILE *f = open_memstream(&text, &len);
    cw_opts_help(&c.spec, f);
    fclose(f);
    assert_string_equal(
        text, "Usage: cronwarden ctl [flags]\n\nRuns.\n\nFlags:\n"
              "  -n, --namespace NS                 where both look\n"
              "      --image IMAGE                  what jobs run (default busybox)\n"
              "      --retain N                     runs kept (default 7)\n"
              "      --every DURATION               how often (default 1m)\n"
              "      --suspend                      run nothing\n"
              "      --tag TAG                      labels [repeatable]\n"
              "      --concurrent N                 at once (default 1)\n"
              "      --output text|json             format (default text)\n"
              "      --config FILE                  YAML file whose keys are the flag names above "
              "(env CRONWARDEN_CONFIG)\n"
              "  -h, --help                         show this help\n\n"
              "Every flag can also be set with CRONWARDEN_<FLAG> (upper case, '-' as '_') or in "
              "the --config file;\nflags win over the environment, the environment over the "
              "file.\n");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(values_land_in_their_structs),
        cmocka_unit_test(bad_values_name_their_flag),
        cmocka_unit_test(tables_keep_a_shared_row_once),
        cmocka_unit_test(help_lists_a_shared_row_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
