/* `cronwarden cron` end to end: the real binary ($CW_BINARY), its stdout, stderr and exit code. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

typedef struct {
    int code;
    char out[8192], err[8192];
} result;

static void slurp(FILE *f, char *buf, size_t len)
{
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Runs "$CW_BINARY cron <args...>" (NULL-terminated). */
static void run(result *r, ...)
{
    const char *bin = getenv("CW_BINARY");
    char *argv[16];
    int argc = 0;
    va_list ap;
    argv[argc++] = (char *)(bin ? bin : "cronwarden");
    argv[argc++] = "cron";
    va_start(ap, r);
    for (const char *a; (a = va_arg(ap, const char *)) && argc < 15;)
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;

    FILE *out = tmpfile(), *err = tmpfile();
    assert_non_null(out);
    assert_non_null(err);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fileno(out), 1);
        dup2(fileno(err), 2);
        unsetenv("ZONEINFO");
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    r->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    slurp(out, r->out, sizeof(r->out));
    slurp(err, r->err, sizeof(r->err));
}

#define EXPECT(r, c, o, e)                                                                         \
    do {                                                                                           \
        assert_int_equal((r).code, (c));                                                           \
        if (o)                                                                                     \
            assert_string_equal((r).out, (const char *)(o));                                       \
        if (e)                                                                                     \
            assert_string_equal((r).err, (const char *)(e));                                       \
    } while (0)

static void validate_prints_valid_or_robfigs_message(void **state)
{
    (void)state;
    result r;
    run(&r, "validate", "CRON_TZ=Europe/Berlin 0 2 * * MON-FRI", NULL);
    EXPECT(r, 0, "valid\n", "");
    run(&r, "validate", "@every 1h30m", NULL);
    EXPECT(r, 0, "valid\n", "");
    run(&r, "validate", "0 0 * * 7", NULL);
    EXPECT(r, 1, "", "end of range (7) above maximum (6): 7\n");
    run(&r, "validate", "TZ=Mars/Olympus 0 0 * * *", NULL);
    EXPECT(r, 1, "", "provided bad location Mars/Olympus: unknown time zone Mars/Olympus\n");
    run(&r, "validate", "", NULL);
    EXPECT(r, 1, "", "empty spec string\n");
    /* control bytes from the input are shown escaped, not sent to the terminal */
    run(&r, "validate", "1\x1b[2J * * * *", NULL);
    EXPECT(r, 1, "",
           "failed to parse int from 1\\x1b[2J: strconv.Atoi: parsing \"1\\x1b[2J\": invalid "
           "syntax\n");
    run(&r, "validate", "--", "-5 * * * *", NULL);
    EXPECT(r, 1, "", "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax\n");
}

static void validate_json(void **state)
{
    (void)state;
    result r;
    run(&r, "validate", "-o", "json", "0 0 30 2 *", NULL);
    EXPECT(r, 0, "{\"expression\":\"0 0 30 2 *\",\"valid\":true}\n", "");
    run(&r, "validate", "--output=json", "TZ=UTC", NULL);
    EXPECT(r, 1,
           "{\"expression\":\"TZ=UTC\",\"valid\":false,\"error\":\"missing space after time zone "
           "prefix: TZ=UTC\"}\n",
           "");
}

static void next_prints_times_in_the_offset_of_from(void **state)
{
    (void)state;
    result r;
    run(&r, "next", "-n", "3", "--from", "2024-11-03T00:00:00-04:00",
        "TZ=America/New_York 30 1 * * *", NULL);
    EXPECT(r, 0,
           "2024-11-03T01:30:00-04:00\n2024-11-03T02:30:00-04:00\n2024-11-04T02:30:00-04:00\n", "");
    run(&r, "next", "-n", "2", "--from", "2024-01-01T00:00:00+05:30", "0 0 * * *", NULL);
    EXPECT(r, 0, "2024-01-02T00:00:00+05:30\n2024-01-03T00:00:00+05:30\n", "");
    run(&r, "next", "-n", "2", "--from", "2024-03-09T08:00:00Z", "TZ=America/New_York 30 2 * * *",
        NULL);
    EXPECT(r, 0, "2024-03-11T06:30:00Z\n2024-03-12T06:30:00Z\n", "");
    run(&r, "next", "--count=2", "--from", "2024-01-01T00:00:00.999Z", "@every 90s", NULL);
    EXPECT(r, 0, "2024-01-01T00:01:30Z\n2024-01-01T00:03:00Z\n", "");
    run(&r, "next", "-n", "3", "--from", "2097-01-01T00:00:00Z", "0 0 29 2 *", NULL);
    EXPECT(r, 0, "never\n", "");
    /* the default: five times after now, in UTC */
    run(&r, "next", "@hourly", NULL);
    assert_int_equal(r.code, 0);
    int lines = 0;
    for (char *p = r.out; (p = strstr(p, ":00:00Z\n")); p++)
        lines++;
    assert_int_equal(lines, 5);
}

static void next_json(void **state)
{
    (void)state;
    result r;
    run(&r, "next", "-o", "json", "-n", "2", "--from", "2024-02-28T12:00:00+05:30", "0 0 29 2 *",
        NULL);
    EXPECT(r, 0,
           "{\"expression\":\"0 0 29 2 *\",\"from\":\"2024-02-28T12:00:00+05:30\",\"next\":[\"2024-"
           "02-29T00:00:00+05:30\",\"2028-02-29T00:00:00+05:30\"],\"never\":false}\n",
           "");
    run(&r, "next", "-o", "json", "--from", "2024-01-01T00:00:00Z", "0 0 30 2 *", NULL);
    EXPECT(r, 0,
           "{\"expression\":\"0 0 30 2 *\",\"from\":\"2024-01-01T00:00:00Z\",\"next\":[],"
           "\"never\":true}\n",
           "");
}

static void next_reports_robfigs_endless_loop(void **state)
{
    (void)state;
    result r;
    run(&r, "next", "-o", "json", "--from", "2011-12-15T00:00:00Z", "TZ=Pacific/Apia 0 0 1 * *",
        NULL);
    EXPECT(r, 0,
           "{\"expression\":\"TZ=Pacific/Apia 0 0 1 * *\",\"from\":\"2011-12-15T00:00:00Z\","
           "\"next\":[],\"never\":true,\"hang\":true}\n",
           NULL);
    assert_non_null(strstr(r.err, "never returns"));
}

static void usage_errors_exit_2(void **state)
{
    (void)state;
    result r;
    run(&r, "next", "0 0 * * 7", NULL);
    EXPECT(r, 1, "", "end of range (7) above maximum (6): 7\n");
    run(&r, "next", "-n", "0", "* * * * *", NULL);
    assert_int_equal(r.code, 2);
    run(&r, "next", "-n", "x", "* * * * *", NULL);
    assert_int_equal(r.code, 2);
    run(&r, "next", "--from", "2024-01-01 00:00:00Z", "* * * * *", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "invalid RFC 3339 time"));
    run(&r, "next", "--from", "2023-02-29T00:00:00Z", "* * * * *", NULL);
    assert_int_equal(r.code, 2);
    run(&r, "next", "-o", "yaml", "* * * * *", NULL);
    assert_int_equal(r.code, 2);
    run(&r, "next", NULL);
    assert_int_equal(r.code, 2);
    run(&r, "validate", "a", "b", NULL);
    assert_int_equal(r.code, 2);
    run(&r, "check", "* * * * *", NULL);
    assert_int_equal(r.code, 2);
    run(&r, NULL);
    assert_int_equal(r.code, 2);
}

static void help_documents_the_flags(void **state)
{
    (void)state;
    result r;
    run(&r, "--help", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "cronwarden cron next [-n N] [--from RFC3339]"));
    run(&r, "next", "--help", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "--count N"));
    assert_non_null(strstr(r.out, "--from RFC3339"));
    assert_non_null(strstr(r.out, "--output FORMAT"));
    assert_non_null(strstr(r.out, "Exit codes"));
    run(&r, "validate", "-h", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "docs/cron.md"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(validate_prints_valid_or_robfigs_message),
        cmocka_unit_test(validate_json),
        cmocka_unit_test(next_prints_times_in_the_offset_of_from),
        cmocka_unit_test(next_json),
        cmocka_unit_test(next_reports_robfigs_endless_loop),
        cmocka_unit_test(usage_errors_exit_2),
        cmocka_unit_test(help_documents_the_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
