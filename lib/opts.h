/* Command-line options for every subcommand from one table: getopt_long parsing, --help text,
 * CRONWARDEN_* environment variables and a YAML --config file with the same keys as the flags.
 * Precedence: flags > environment > config file > defaults. */
#ifndef CW_OPTS_H
#define CW_OPTS_H

#include <stddef.h>
#include <stdio.h>

#include "lib/error.h"
#include "lib/strlist.h"

typedef enum {
    CW_OPT_STRING,  /* value: char ** (owned, freed by cw_opts_free) */
    CW_OPT_INT,     /* value: long long *, bounded by min/max */
    CW_OPT_DOUBLE,  /* value: double * */
    CW_OPT_BOOL,    /* value: int *; "--flag", "--flag=true|false" */
    CW_OPT_ENUM,    /* value: char ** ; value must be one of `choices` ("text|json") */
    CW_OPT_LIST,    /* value: cw_strlist *; repeatable; flags replace env/file values */
    CW_OPT_DURATION /* value: double * seconds; "90s", "10m", "1h30m", "500ms" or plain seconds */
} cw_opt_type;

typedef struct cw_opt {
    const char *name; /* long flag without dashes, also the config-file key */
    char short_name;  /* 0 when none */
    cw_opt_type type;
    const char *metavar;
    const char *help;
    /* Where the value goes: at `target` (at 0), or `offset` bytes into the at-th base its table's
     * user gives (a struct made at run time: a reconciler's config, say; CW_OPT_IN). */
    void *target;
    unsigned char at;
    size_t offset;
    const char *def;     /* default as text, applied before anything else (NULL: none) */
    const char *choices; /* CW_OPT_ENUM: "a|b|c" */
    long long min, max;  /* CW_OPT_INT bounds (both 0: unbounded) */
    int no_env;          /* 1: not read from the environment (e.g. secrets, --config itself) */
} cw_opt;

/* Where a row's value goes: at an address known at compile time, or as a member of the struct its
 * at-th base is (at >= 1; a struct made at run time). */
#define CW_OPT_TO(target_)             .target = (target_)
#define CW_OPT_IN(at_, type_, member_) .at = (at_), .offset = offsetof(type_, member_)

/* Rows of the common kinds, one expression each (the other fields zero). */
#define CW_OPT_STR(name_, metavar_, target_, def_, help_)                                          \
    {                                                                                              \
        .name = (name_), .type = CW_OPT_STRING, .metavar = (metavar_), .help = (help_),            \
        .target = (target_), .def = (def_)                                                         \
    }
#define CW_OPT_NUM(name_, target_, def_, min_, max_, help_)                                        \
    {                                                                                              \
        .name = (name_), .type = CW_OPT_INT, .metavar = "N", .help = (help_), .target = (target_), \
        .def = (def_), .min = (min_), .max = (max_)                                                \
    }
#define CW_OPT_DUR(name_, target_, def_, help_)                                                    \
    {                                                                                              \
        .name = (name_), .type = CW_OPT_DURATION, .metavar = "DURATION", .help = (help_),          \
        .target = (target_), .def = (def_)                                                         \
    }
#define CW_OPT_FLAG(name_, target_, def_, help_)                                                   \
    {                                                                                              \
        .name = (name_), .type = CW_OPT_BOOL, .help = (help_), .target = (target_), .def = (def_)  \
    }

/* The same rows with their value a member of the struct of the table user's first base. */
#define CW_OPT_STR_AT(name_, metavar_, type_, member_, def_, help_)                                \
    {                                                                                              \
        .name = (name_), .type = CW_OPT_STRING, .metavar = (metavar_), .help = (help_),            \
        CW_OPT_IN(1, type_, member_), .def = (def_)                                                \
    }
#define CW_OPT_NUM_AT(name_, type_, member_, def_, min_, max_, help_)                              \
    {                                                                                              \
        .name = (name_), .type = CW_OPT_INT, .metavar = "N", .help = (help_),                      \
        CW_OPT_IN(1, type_, member_), .def = (def_), .min = (min_), .max = (max_)                  \
    }
#define CW_OPT_DUR_AT(name_, type_, member_, def_, help_)                                          \
    {                                                                                              \
        .name = (name_), .type = CW_OPT_DURATION, .metavar = "DURATION", .help = (help_),          \
        CW_OPT_IN(1, type_, member_), .def = (def_)                                                \
    }
#define CW_OPT_FLAG_AT(name_, type_, member_, def_, help_)                                         \
    {                                                                                              \
        .name = (name_), .type = CW_OPT_BOOL, .help = (help_), CW_OPT_IN(1, type_, member_),       \
        .def = (def_)                                                                              \
    }

typedef struct cw_cmd_spec {
    const char *name;     /* "webhook" */
    const char *synopsis; /* "cronwarden webhook [flags]" */
    const char *summary;  /* one paragraph */
    const cw_opt *opts;
    size_t nopts;
    void *const *bases;     /* nopts entries (NULL when no row has `at`): the base of row i, which
                               cw_opts_append_at fills */
    const char *footer;     /* exit codes, examples */
    int config_file;        /* 1: accept --config FILE */
    int min_args, max_args; /* positional argument count (max -1: unlimited) */
    unsigned char *origin;  /* optional, nopts bytes: where each value came from (CW_OPT_FROM_*) */
} cw_cmd_spec;

/* Where a value came from, lowest precedence first. */
enum { CW_OPT_FROM_DEFAULT, CW_OPT_FROM_CONFIG, CW_OPT_FROM_ENV, CW_OPT_FROM_FLAG };

/* Appends the n rows of `rows` to the table out (room for cap, *len rows there), each flag once:
 * a row with a name and value already there is skipped (a row two parts of a command share);
 * the same name for another value is CW_EINVAL, a full table CW_ELIMIT. A row with `at` k is
 * offset into bases[k - 1] (nbases of them), which goes to out_bases (the spec's bases, room for
 * cap); a k beyond them is CW_EINVAL. cw_opts_append: rows of targets alone. */
int cw_opts_append_at(cw_opt *out, void **out_bases, size_t cap, size_t *len, const cw_opt *rows,
                      size_t n, void *const *bases, size_t nbases, cw_error *err) CW_MUST_CHECK;
int cw_opts_append(cw_opt *out, size_t cap, size_t *len, const cw_opt *rows, size_t n,
                   cw_error *err) CW_MUST_CHECK;
/* Where row i of spec keeps its value. */
void *cw_opts_value(const cw_cmd_spec *spec, size_t i);

/* Applies defaults, config file, environment and argv (argv[0] is the subcommand name), each
 * overriding the one before; a value that a later source overrides is never looked at, so a bad
 * environment variable does not matter when the flag is given. Flags and positional arguments
 * may come in any order (`--` ends the flags). Variables named CRONWARDEN_* that are no flag of
 * the command are warned about on stderr.
 * Positional arguments go to `args`. Returns CW_OK, 1 when --help was printed to `out`, or
 * CW_EUSAGE with a one-line message in err (CW_EINVAL: a row whose base spec->bases lacks). */
int cw_opts_parse(const cw_cmd_spec *spec, int argc, char **argv, cw_strlist *args, FILE *out,
                  cw_error *err) CW_MUST_CHECK;
void cw_opts_help(const cw_cmd_spec *spec, FILE *out);
/* Frees string and list values the parser allocated (each row's at its target or in its base). */
void cw_opts_free(const cw_cmd_spec *spec);
/* Go-style duration ("1h30m", "90s", "250ms", "1.5h") or plain seconds, to seconds. */
int cw_opts_parse_duration(const char *s, double *seconds);
/* The environment variable for a flag: CRONWARDEN_ + upper-case name with '-' as '_'. */
void cw_opts_env_name(const char *flag, char *out, size_t outlen);

#endif
