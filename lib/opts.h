/* Command-line options for every subcommand from one table: getopt_long parsing, --help text,
 * CRONWARDEN_* environment variables and a YAML --config file with the same keys as the flags.
 * Precedence: flags > environment > config file > defaults. */
#ifndef CW_OPTS_H
#define CW_OPTS_H

#include <stdio.h>

#include "lib/error.h"
#include "lib/strlist.h"

typedef enum {
    CW_OPT_STRING,  /* target: char ** (owned, freed by cw_opts_free) */
    CW_OPT_INT,     /* target: long long *, bounded by min/max */
    CW_OPT_DOUBLE,  /* target: double * */
    CW_OPT_BOOL,    /* target: int *; "--flag", "--flag=true|false" */
    CW_OPT_ENUM,    /* target: char ** ; value must be one of `choices` ("text|json") */
    CW_OPT_LIST,    /* target: cw_strlist *; repeatable; flags replace env/file values */
    CW_OPT_DURATION /* target: double * seconds; "90s", "10m", "1h30m", "500ms" or plain seconds */
} cw_opt_type;

typedef struct cw_opt {
    const char *name; /* long flag without dashes, also the config-file key */
    char short_name;  /* 0 when none */
    cw_opt_type type;
    const char *metavar;
    const char *help;
    void *target;
    const char *def;     /* default as text, applied before anything else (NULL: none) */
    const char *choices; /* CW_OPT_ENUM: "a|b|c" */
    long long min, max;  /* CW_OPT_INT bounds (both 0: unbounded) */
    int no_env;          /* 1: not read from the environment (e.g. secrets, --config itself) */
} cw_opt;

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

typedef struct cw_cmd_spec {
    const char *name;     /* "webhook" */
    const char *synopsis; /* "cronwarden webhook [flags]" */
    const char *summary;  /* one paragraph */
    const cw_opt *opts;
    size_t nopts;
    const char *footer;     /* exit codes, examples */
    int config_file;        /* 1: accept --config FILE */
    int min_args, max_args; /* positional argument count (max -1: unlimited) */
    unsigned char *origin;  /* optional, nopts bytes: where each value came from (CW_OPT_FROM_*) */
} cw_cmd_spec;

/* Where a value came from, lowest precedence first. */
enum { CW_OPT_FROM_DEFAULT, CW_OPT_FROM_CONFIG, CW_OPT_FROM_ENV, CW_OPT_FROM_FLAG };

/* Appends the n rows of `rows` to the table out (room for cap, *len rows there), each flag once:
 * a row with a name and target already there is skipped (a row two parts of a command share);
 * the same name for another target is CW_EINVAL, a full table CW_ELIMIT. */
int cw_opts_append(cw_opt *out, size_t cap, size_t *len, const cw_opt *rows, size_t n,
                   cw_error *err) CW_MUST_CHECK;

/* Applies defaults, config file, environment and argv (argv[0] is the subcommand name), each
 * overriding the one before; a value that a later source overrides is never looked at, so a bad
 * environment variable does not matter when the flag is given. Flags and positional arguments
 * may come in any order (`--` ends the flags). Variables named CRONWARDEN_* that are no flag of
 * the command are warned about on stderr.
 * Positional arguments go to `args`. Returns CW_OK, 1 when --help was printed to `out`, or
 * CW_EUSAGE with a one-line message in err. */
int cw_opts_parse(const cw_cmd_spec *spec, int argc, char **argv, cw_strlist *args, FILE *out,
                  cw_error *err) CW_MUST_CHECK;
void cw_opts_help(const cw_cmd_spec *spec, FILE *out);
/* Frees string and list targets the parser allocated. */
void cw_opts_free(const cw_cmd_spec *spec);
/* Go-style duration ("1h30m", "90s", "250ms", "1.5h") or plain seconds, to seconds. */
int cw_opts_parse_duration(const char *s, double *seconds);
/* The environment variable for a flag: CRONWARDEN_ + upper-case name with '-' as '_'. */
void cw_opts_env_name(const char *flag, char *out, size_t outlen);

#endif
