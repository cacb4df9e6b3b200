#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/opts.h"

typedef struct {
    char *listen, *format;
    long long threads;
    int self_signed;
    double grace;
    cw_strlist files;
} settings;

static settings s;

static const cw_opt opts[] = {
    {.name = "listen",
     .short_name = 'l',
     .type = CW_OPT_STRING,
     .metavar = "ADDR:PORT",
     .help = "address to serve on",
     .target = &s.listen,
     .def = "0.0.0.0:9443"},
    {.name = "output",
     .short_name = 'o',
     .type = CW_OPT_ENUM,
     .help = "report format",
     .target = &s.format,
     .def = "text",
     .choices = "text|json|yaml"},
    {.name = "threads",
     .type = CW_OPT_INT,
     .help = "worker threads",
     .target = &s.threads,
     .def = "2",
     .min = 1,
     .max = 64},
    {.name = "self-signed", .type = CW_OPT_BOOL, .help = "make a CA", .target = &s.self_signed},
    {.name = "shutdown-grace",
     .type = CW_OPT_DURATION,
     .help = "drain time",
     .target = &s.grace,
     .def = "10s"},
    {.name = "from-file",
     .short_name = 'f',
     .type = CW_OPT_LIST,
     .metavar = "PATH",
     .help = "input",
     .target = &s.files},
};

static const cw_cmd_spec spec = {.name = "webhook",
                                 .synopsis = "cronwarden webhook [flags]",
                                 .summary = "Serves.",
                                 .opts = opts,
                                 .nopts = sizeof(opts) / sizeof(opts[0]),
                                 .config_file = 1,
                                 .max_args = 1};

static int run(const char *line, cw_strlist *args, cw_error *err)
{
    char *copy = strdup(line);
    char *argv[32];
    int argc = 0;
    for (char *t = strtok(copy, " "); t && argc < 31; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    memset(&s, 0, sizeof(s));
    cw_strlist_init(&s.files);
    FILE *devnull = fopen("/dev/null", "w");
    int rc = cw_opts_parse(&spec, argc, argv, args, devnull, err);
    fclose(devnull);
    free(copy);
    return rc;
}

static void flags_override_defaults(void **state)
{
    (void)state;
    cw_error err;
    cw_error_init(&err);
    cw_strlist args;
    cw_strlist_init(&args);
    assert_int_equal(run("webhook -l 127.0.0.1:1 --output=json --threads 4 --self-signed "
                         "--shutdown-grace 1m30s -f a -f b pos",
                         &args, &err),
                     CW_OK);
    assert_string_equal(s.listen, "127.0.0.1:1");
    assert_string_equal(s.format, "json");
    assert_int_equal(s.threads, 4);
    assert_int_equal(s.self_signed, 1);
    assert_true(s.grace == 90.0);
    assert_int_equal(s.files.len, 2);
    assert_string_equal(args.items[0], "pos");
    cw_opts_free(&spec);
    cw_strlist_free(&args);
    assert_int_equal(run("webhook", NULL, &err), CW_OK);
    assert_string_equal(s.listen, "0.0.0.0:9443");
    assert_true(s.grace == 10.0);
    assert_int_equal(s.threads, 2);
    cw_opts_free(&spec);
}

static void usage_errors_have_one_line_messages(void **state)
{
    (void)state;
    static const struct {
        const char *line, *msg;
    } cases[] = {
        {"webhook --nope", "unknown flag '--nope'"},
        {"webhook -x", "unknown flag '-x'"},
        {"webhook --listen", "flag '--listen' needs a value"},
        {"webhook -o xml", "invalid value 'xml' for --output (choose text|json|yaml)"},
        {"webhook --threads 0", "--threads must be between 1 and 64, got 0"},
        {"webhook --threads two", "--threads expects an integer, got 'two'"},
        {"webhook --self-signed=maybe", "--self-signed expects true or false, got 'maybe'"},
        {"webhook --shutdown-grace 3d",
         "--shutdown-grace expects a duration like 30s, 10m or 1h30m, got '3d'"},
        {"webhook a b", "unexpected argument 'b'"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cw_error err;
        cw_error_init(&err);
        assert_int_equal(run(cases[i].line, NULL, &err), CW_EUSAGE);
        if (strcmp(err.message, cases[i].msg) != 0)
            fail_msg("case %zu: got '%s' want '%s'", i, err.message, cases[i].msg);
        cw_opts_free(&spec);
    }
}

/* kubectl's and GNU's order: flags after and between arguments; `--` ends the flags. */
static void flags_and_arguments_interleave(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        const char *arg; /* the positional argument */
        long long threads;
    } cases[] = {
        {"webhook pos --threads 5", "pos", 5},
        {"webhook --threads 5 pos", "pos", 5},
        {"webhook -l 127.0.0.1:9 pos -o json --threads 7", "pos", 7},
        {"webhook --threads 6 -- --not-a-flag", "--not-a-flag", 6},
        {"webhook -- -l", "-l", 2},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cw_error err;
        cw_error_init(&err);
        cw_strlist args;
        cw_strlist_init(&args);
        assert_int_equal(run(cases[i].line, &args, &err), CW_OK);
        assert_int_equal(args.len, 1);
        assert_string_equal(args.items[0], cases[i].arg);
        assert_int_equal(s.threads, cases[i].threads);
        cw_opts_free(&spec);
        cw_strlist_free(&args);
    }
}

/* A flag wins over the environment, and an environment variable that a flag overrides is not
 * even looked at; a config file holds one YAML document. */
static void overridden_values_are_not_validated(void **state)
{
    (void)state;
    cw_error err;
    cw_error_init(&err);
    setenv("CRONWARDEN_OUTPUT", "xml", 1);
    assert_int_equal(run("webhook -o json", NULL, &err), CW_OK);
    assert_string_equal(s.format, "json");
    cw_opts_free(&spec);
    assert_int_equal(run("webhook", NULL, &err), CW_EUSAGE);
    assert_string_equal(err.message, "environment variable CRONWARDEN_OUTPUT: invalid value 'xml' "
                                     "for --output (choose text|json|yaml)");
    cw_opts_free(&spec);
    unsetenv("CRONWARDEN_OUTPUT");

    char path[] = "/tmp/cw-opts-XXXXXX", line[256];
    int fd = mkstemp(path);
    const char *yaml = "threads: 8\n---\nthreads: 9\n";
    assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
    close(fd);
    snprintf(line, sizeof(line), "webhook --config %s", path);
    assert_int_equal(run(line, NULL, &err), CW_EUSAGE);
    char want[300];
    snprintf(want, sizeof(want), "config file %s: holds 2 YAML documents; put every flag in one",
             path);
    assert_string_equal(err.message, want);
    cw_opts_free(&spec);
    unlink(path);
}

static void precedence_is_flags_env_file_defaults(void **state)
{
    (void)state;
    char path[] = "/tmp/cw-opts-XXXXXX";
    int fd = mkstemp(path);
    const char *yaml = "listen: 10.0.0.1:1\nthreads: 8\nfrom-file: [x, y]\nshutdown-grace: 5s\n";
    assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
    close(fd);
    char line[256];
    cw_error err;
    cw_error_init(&err);

    snprintf(line, sizeof(line), "webhook --config %s", path);
    assert_int_equal(run(line, NULL, &err), CW_OK);
    assert_string_equal(s.listen, "10.0.0.1:1");
    assert_int_equal(s.threads, 8);
    assert_int_equal(s.files.len, 2);
    assert_true(s.grace == 5.0);
    cw_opts_free(&spec);

    setenv("CRONWARDEN_THREADS", "16", 1);
    setenv("CRONWARDEN_FROM_FILE", "p,q,r", 1);
    assert_int_equal(run(line, NULL, &err), CW_OK);
    assert_int_equal(s.threads, 16);
    assert_int_equal(s.files.len, 3);
    assert_string_equal(s.listen, "10.0.0.1:1");
    cw_opts_free(&spec);

    snprintf(line, sizeof(line), "webhook --config %s --threads 3 -f only", path);
    assert_int_equal(run(line, NULL, &err), CW_OK);
    assert_int_equal(s.threads, 3);
    assert_int_equal(s.files.len, 1);
    assert_string_equal(s.files.items[0], "only");
    cw_opts_free(&spec);

    setenv("CRONWARDEN_THREADS", "999", 1);
    assert_int_equal(run("webhook", NULL, &err), CW_EUSAGE);
    assert_string_equal(
        err.message,
        "environment variable CRONWARDEN_THREADS: --threads must be between 1 and 64, got 999");
    cw_opts_free(&spec);
    unsetenv("CRONWARDEN_THREADS");
    unsetenv("CRONWARDEN_FROM_FILE");

    FILE *f = fopen(path, "w");
    fputs("bogus: 1\n", f);
    fclose(f);
    snprintf(line, sizeof(line), "webhook --config=%s", path);
    assert_int_equal(run(line, NULL, &err), CW_EUSAGE);
    char want[300];
    snprintf(want, sizeof(want), "config file %s: unknown key 'bogus'", path);
    assert_string_equal(err.message, want);
    cw_opts_free(&spec);
    unlink(path);
}

static void durations_parse_like_go(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double secs;
        int ok;
    } cases[] = {
        {"10", 10, 1},
        {"1.5", 1.5, 1},
        {"90s", 90, 1},
        {"10m", 600, 1},
        {"1h30m", 5400, 1},
        {"250ms", 0.25, 1},
        {"1.5h", 5400, 1},
        {"", 0, 0},
        {"3d", 0, 0},
        {"-1s", 0, 0},
        {"m", 0, 0},
        /* what strtod alone would take as plain seconds */
        {"inf", 0, 0},
        {"nan", 0, 0},
        {"0x10", 0, 0},
        {"1e3", 0, 0},
        {" 5", 0, 0},
        {"+5", 0, 0},
        {".", 0, 0},
        {"1.2.3", 0, 0},
        /* Go's grammar: fractions, µs, several units, the 2^63 ns limit */
        {"1.5us", 1.5e-6, 1},
        {"2\xc2\xb5s", 2e-6, 1},
        {"1h1m1s", 3661, 1},
        {"2562047h47m16.854775807s", 9223372036.854775807, 1},
        {"2562048h", 0, 0},
        {".5s", 0.5, 1},
        {"5.s", 5, 1},
        {"0", 0, 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double d = -1;
        int rc = cw_opts_parse_duration(cases[i].text, &d);
        assert_int_equal(rc == CW_OK, cases[i].ok);
        if (cases[i].ok)
            assert_true(fabs(d - cases[i].secs) <= 1e-9 * (cases[i].secs > 1 ? cases[i].secs : 1));
    }
}

/* Tables put together from parts: a row two parts share (same name, same target) is kept once;
 * the same name for another target is refused. */
static void tables_append_each_flag_once(void **state)
{
    (void)state;
    static char *a, *b;
    static const cw_opt one[] = {CW_OPT_STR("ns", "NS", &a, "", "the namespace"),
                                 CW_OPT_DUR("every", &s.grace, "1m", "how often")};
    static const cw_opt two[] = {CW_OPT_STR("ns", "NS", &a, "", "the namespace"),
                                 CW_OPT_FLAG("yes", &s.self_signed, "false", "say yes")};
    static const cw_opt clash[] = {CW_OPT_STR("ns", "NS", &b, "", "another namespace")};
    cw_opt out[3];
    size_t n = 0;
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_opts_append(out, 3, &n, one, 2, &err), CW_OK);
    assert_int_equal(cw_opts_append(out, 3, &n, two, 2, &err), CW_OK);
    assert_int_equal(n, 3);
    assert_string_equal(out[2].name, "yes");
    assert_int_equal(cw_opts_append(out, 3, &n, clash, 1, &err), CW_EINVAL);
    assert_string_equal(err.message, "two different options are called --ns");
    static const cw_opt more[] = {CW_OPT_NUM("n", &s.threads, "1", 1, 9, "a number")};
    assert_int_equal(cw_opts_append(out, 3, &n, more, 1, &err), CW_ELIMIT);
    assert_string_equal(err.message, "more than 3 options");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flags_override_defaults),
        cmocka_unit_test(usage_errors_have_one_line_messages),
        cmocka_unit_test(precedence_is_flags_env_file_defaults),
        cmocka_unit_test(flags_and_arguments_interleave),
        cmocka_unit_test(overridden_values_are_not_validated),
        cmocka_unit_test(durations_parse_like_go),
        cmocka_unit_test(tables_append_each_flag_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
