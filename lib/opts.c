#include "lib/opts.h"
#include "lib/gostr.h"
#include "lib/buf.h"
#include "lib/yaml.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void cw_opts_env_name(const char *flag, char *out, size_t outlen)
{
    size_t n = (size_t)snprintf(out, outlen, "CRONWARDEN_");
    for (const char *p = flag; *p && n + 1 < outlen; p++)
        out[n++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
    out[n < outlen ? n : outlen - 1] = '\0';
}

int cw_opts_parse_duration(const char *s, double *seconds)
{
    size_t n = strlen(s), digits = strspn(s, "0123456789"), dots = 0;
    if (!n)
        return CW_EINVAL;
    /* Plain seconds ("30", "1.5"): decimal digits and at most one point, nothing strtod would
     * also take (inf, nan, 0x10, 1e3, signs, spaces). */
    for (const char *p = s + digits; *p == '.' || (*p >= '0' && *p <= '9'); p++)
        dots += *p == '.';
    if (dots <= 1 && strspn(s, "0123456789.") == n && strcmp(s, ".")) {
        *seconds = strtod(s, NULL);
        return CW_OK;
    }
    /* Everything else is Go's time.ParseDuration, the one grammar Kubernetes flags use. */
    int64_t ns;
    cw_buf msg;
    cw_buf_init(&msg);
    int rc = cw_go_parse_duration(s, n, &ns, &msg);
    cw_buf_free(&msg);
    if (rc != 0 || ns < 0)
        return CW_EINVAL;
    *seconds = (double)ns / 1e9;
    return CW_OK;
}

static int parse_bool(const char *v, int *out)
{
    static const char *yes[] = {"true", "1", "yes", "on"};
    static const char *no[] = {"false", "0", "no", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0) {
            *out = 1;
            return CW_OK;
        }
        if (strcasecmp(v, no[i]) == 0) {
            *out = 0;
            return CW_OK;
        }
    }
    return CW_EINVAL;
}

static int enum_ok(const char *choices, const char *v)
{
    size_t vl = strlen(v);
    const char *p = choices;
    while (p && *p) {
        const char *bar = strchr(p, '|');
        size_t l = bar ? (size_t)(bar - p) : strlen(p);
        if (l == vl && strncmp(p, v, l) == 0)
            return 1;
        p = bar ? bar + 1 : NULL;
    }
    return 0;
}

/* Where row o keeps its value, base being the struct it is relative to (NULL: not given). */
static void *place(const cw_opt *o, void *base)
{
    if (!o->at)
        return o->target;
    return base ? (char *)base + o->offset : NULL;
}

void *cw_opts_value(const cw_cmd_spec *spec, size_t i)
{
    return place(&spec->opts[i], spec->bases ? spec->bases[i] : NULL);
}

/* Sets row i of spec from text. `source` names where it came from for messages (NULL: the
 * command line, whose messages need no prefix). */
static int set_value(const cw_cmd_spec *spec, size_t i, const char *v, const char *source_name,
                     cw_error *err)
{
    const cw_opt *o = &spec->opts[i];
    void *target = cw_opts_value(spec, i);
    char source[200] = "";
    if (source_name)
        snprintf(source, sizeof(source), "%s: ", source_name);
    switch (o->type) {
    case CW_OPT_STRING:
    case CW_OPT_ENUM: {
        if (o->type == CW_OPT_ENUM && !enum_ok(o->choices, v))
            return cw_error_set(err, CW_EUSAGE, "%sinvalid value '%s' for --%s (choose %s)", source,
                                v, o->name, o->choices);
        char *copy = strdup(v);
        if (!copy)
            return cw_error_oom(err);
        char **t = target;
        free(*t);
        *t = copy;
        return CW_OK;
    }
    case CW_OPT_INT: {
        char *end = NULL;
        errno = 0;
        long long n = strtoll(v, &end, 10);
        if (!*v || *end || errno)
            return cw_error_set(err, CW_EUSAGE, "%s--%s expects an integer, got '%s'", source,
                                o->name, v);
        if ((o->min || o->max) && (n < o->min || n > o->max))
            return cw_error_set(err, CW_EUSAGE, "%s--%s must be between %lld and %lld, got %lld",
                                source, o->name, o->min, o->max, n);
        *(long long *)target = n;
        return CW_OK;
    }
    case CW_OPT_DOUBLE: {
        char *end = NULL;
        errno = 0;
        double d = strtod(v, &end);
        if (!*v || *end || errno || !isfinite(d))
            return cw_error_set(err, CW_EUSAGE, "%s--%s expects a number, got '%s'", source,
                                o->name, v);
        *(double *)target = d;
        return CW_OK;
    }
    case CW_OPT_DURATION: {
        double d;
        if (cw_opts_parse_duration(v, &d) != CW_OK)
            return cw_error_set(err, CW_EUSAGE,
                                "%s--%s expects a duration like 30s, 10m or 1h30m, got '%s'",
                                source, o->name, v);
        *(double *)target = d;
        return CW_OK;
    }
    case CW_OPT_BOOL: {
        int b;
        if (parse_bool(v, &b) != CW_OK)
            return cw_error_set(err, CW_EUSAGE, "%s--%s expects true or false, got '%s'", source,
                                o->name, v);
        *(int *)target = b;
        return CW_OK;
    }
    case CW_OPT_LIST: {
        cw_strlist *l = target;
        /* Environment and defaults give comma-separated lists. */
        if (source_name && strchr(v, ',')) {
            const char *p = v;
            while (*p) {
                const char *c = strchr(p, ',');
                size_t n = c ? (size_t)(c - p) : strlen(p);
                char *item = strndup(p, n);
                if (cw_strlist_take(l, item) != CW_OK)
                    return cw_error_oom(err);
                p = c ? c + 1 : p + n;
            }
            return CW_OK;
        }
        if (cw_strlist_add(l, v) != CW_OK)
            return cw_error_oom(err);
        return CW_OK;
    }
    }
    return CW_EINVAL;
}

static int no_base(const cw_opt *o, cw_error *err)
{
    return cw_error_set(err, CW_EINVAL, "--%s is kept in base %u, which is not given", o->name,
                        o->at);
}

int cw_opts_append_at(cw_opt *out, void **out_bases, size_t cap, size_t *len, const cw_opt *rows,
                      size_t n, void *const *bases, size_t nbases, cw_error *err)
{
    for (size_t i = 0; i < n; i++) {
        void *base = rows[i].at && rows[i].at <= nbases ? bases[rows[i].at - 1] : NULL;
        void *value = place(&rows[i], base);
        size_t k = 0;
        if (!value || (rows[i].at && !out_bases))
            return no_base(&rows[i], err);
        while (k < *len && strcmp(out[k].name, rows[i].name) != 0)
            k++;
        if (k < *len && place(&out[k], out_bases ? out_bases[k] : NULL) != value)
            return cw_error_set(err, CW_EINVAL, "two different options are called --%s",
                                rows[i].name);
        if (k < *len)
            continue;
        if (*len >= cap)
            return cw_error_set(err, CW_ELIMIT, "more than %zu options", cap);
        if (out_bases)
            out_bases[*len] = base;
        out[(*len)++] = rows[i];
    }
    return CW_OK;
}

int cw_opts_append(cw_opt *out, size_t cap, size_t *len, const cw_opt *rows, size_t n,
                   cw_error *err)
{
    return cw_opts_append_at(out, NULL, cap, len, rows, n, NULL, 0, err);
}

/* The row called name (spec->nopts: none). */
static size_t find_opt(const cw_cmd_spec *spec, const char *name)
{
    size_t i = 0;
    while (i < spec->nopts && strcmp(spec->opts[i].name, name) != 0)
        i++;
    return i;
}

static void clear_list(const cw_cmd_spec *spec, size_t i)
{
    if (spec->opts[i].type == CW_OPT_LIST)
        cw_strlist_clear(cw_opts_value(spec, i));
}

/* The config file: a YAML mapping whose keys are flag names. */
static int apply_config_file(const cw_cmd_spec *spec, const char *path, cw_error *err)
{
    cw_yaml_docs docs;
    cw_yaml_docs_init(&docs);
    char source[600], source_name[600];
    int rc = cw_yaml_parse_file(path, &docs, err);
    if (rc != CW_OK) {
        rc = CW_EUSAGE;
        err->code = rc;
        goto done;
    }
    snprintf(source, sizeof(source), "config file %s: ", path);
    snprintf(source_name, sizeof(source_name), "config file %s", path);
    if (docs.len == 0)
        goto done;
    if (docs.len > 1) {
        rc = cw_error_set(err, CW_EUSAGE, "%sholds %zu YAML documents; put every flag in one",
                          source, docs.len);
        goto done;
    }
    json_object *root = docs.items[0].value;
    if (!json_object_is_type(root, json_type_object)) {
        rc = cw_error_set(err, CW_EUSAGE, "%sexpected a mapping of flag names to values", source);
        goto done;
    }
    json_object_object_foreach(root, key, val)
    {
        size_t k = find_opt(spec, key);
        if (k == spec->nopts || strcmp(key, "config") == 0) {
            rc = cw_error_set(err, CW_EUSAGE, "%sunknown key '%s'", source, key);
            goto done;
        }
        clear_list(spec, k);
        if (json_object_is_type(val, json_type_array)) {
            if (spec->opts[k].type != CW_OPT_LIST) {
                rc = cw_error_set(err, CW_EUSAGE, "%s'%s' takes a single value", source, key);
                goto done;
            }
            for (size_t i = 0; i < json_object_array_length(val); i++) {
                json_object *item = json_object_array_get_idx(val, i);
                rc = set_value(spec, k, json_object_get_string(item), NULL, err);
                if (rc != CW_OK)
                    goto done;
            }
            continue;
        }
        if (json_object_is_type(val, json_type_object)) {
            rc = cw_error_set(err, CW_EUSAGE, "%s'%s' must be a scalar", source, key);
            goto done;
        }
        rc = set_value(spec, k,
                       json_object_is_type(val, json_type_null) ? "" : json_object_get_string(val),
                       source_name, err);
        if (rc != CW_OK)
            goto done;
        if (spec->origin)
            spec->origin[k] = CW_OPT_FROM_CONFIG;
    }
done:
    cw_yaml_docs_free(&docs);
    return rc;
}

/* getopt_long's tables for spec (caller frees *longs and shorts). */
static int getopt_tables(const cw_cmd_spec *spec, struct option **longs, cw_buf *shorts)
{
    *longs = calloc(spec->nopts + 3, sizeof(**longs));
    if (!*longs)
        return CW_ENOMEM;
    cw_buf_puts(shorts, ":h"); /* GNU order: flags and arguments interleave, `--` ends flags */
    size_t k = 0;
    for (size_t i = 0; i < spec->nopts; i++) {
        const cw_opt *o = &spec->opts[i];
        (*longs)[k++] = (struct option){
            .name = o->name,
            .has_arg = o->type == CW_OPT_BOOL ? optional_argument : required_argument,
            .val = 256 + (int)i,
        };
        if (o->short_name) {
            cw_buf_putc(shorts, o->short_name);
            if (o->type != CW_OPT_BOOL)
                cw_buf_putc(shorts, ':');
        }
    }
    (*longs)[k++] = (struct option){"help", no_argument, NULL, 'h'};
    if (spec->config_file)
        (*longs)[k++] = (struct option){"config", required_argument, NULL, 1};
    return cw_buf_error(shorts);
}

/* One getopt pass over argv: with apply 0 it only checks the flags and marks the options given
 * (from_flag[i]); with apply 1 it sets them. 1: --help was asked for. */
static int flag_pass(const cw_cmd_spec *spec, int argc, char **argv, const struct option *longs,
                     const char *shorts, int apply, unsigned char *from_flag, cw_error *err)
{
    optind = 0; /* a full reset of getopt's state */
    opterr = 0;
    for (;;) {
        int longidx = -1, c = getopt_long(argc, argv, shorts, longs, &longidx);
        if (c == -1)
            return CW_OK;
        if (c == 'h')
            return 1;
        if (c == 1)
            continue; /* --config was applied before */
        if (c == '?') {
            if (optopt && optopt < 256)
                return cw_error_set(err, CW_EUSAGE, "unknown flag '-%c'", optopt);
            return cw_error_set(err, CW_EUSAGE, "unknown flag '%s'", argv[optind - 1]);
        }
        if (c == ':')
            return cw_error_set(err, CW_EUSAGE, "flag '%s' needs a value", argv[optind - 1]);
        size_t idx = 0;
        if (c >= 256)
            idx = (size_t)(c - 256);
        else
            while (idx < spec->nopts && spec->opts[idx].short_name != c)
                idx++;
        if (idx >= spec->nopts)
            return cw_error_set(err, CW_EUSAGE, "unknown flag '-%c'", c);
        const cw_opt *o = &spec->opts[idx];
        if (!apply) {
            from_flag[idx] = 1;
            continue;
        }
        if (o->type == CW_OPT_LIST && from_flag[idx] == 1) {
            clear_list(spec, idx); /* flags replace what the environment or the file listed */
            from_flag[idx] = 2;
        }
        const char *v = optarg ? optarg : o->type == CW_OPT_BOOL ? "true" : "";
        int rc = set_value(spec, idx, v, NULL, err);
        if (rc != CW_OK)
            return rc;
    }
}

/* CRONWARDEN_* variables that are no flag of this command: a warning each (a misspelling would
 * otherwise be ignored without a word). */
static void warn_unknown_env(const cw_cmd_spec *spec)
{
    extern char **environ;
    static const char *const known[] = {
        "CRONWARDEN_CONFIG=", "CRONWARDEN_FAILPOINTS=", "CRONWARDEN_E2E_"};
    int reads_env = 0;
    for (size_t i = 0; i < spec->nopts; i++)
        reads_env |= !spec->opts[i].no_env;
    for (char **e = environ; reads_env && e && *e; e++) {
        if (strncmp(*e, "CRONWARDEN_", 11) != 0)
            continue;
        int ok = 0;
        for (size_t k = 0; k < sizeof(known) / sizeof(known[0]) && !ok; k++)
            ok = strncmp(*e, known[k], strlen(known[k])) == 0;
        for (size_t i = 0; i < spec->nopts && !ok; i++) {
            char name[128];
            cw_opts_env_name(spec->opts[i].name, name, sizeof(name));
            size_t n = strlen(name);
            ok = !spec->opts[i].no_env && strncmp(*e, name, n) == 0 && (*e)[n] == '=';
        }
        if (!ok)
            fprintf(stderr,
                    "cronwarden %s: warning: ignoring the environment variable %.*s: no flag of "
                    "this command reads it\n",
                    spec->name, (int)strcspn(*e, "="), *e);
    }
}

int cw_opts_parse(const cw_cmd_spec *spec, int argc, char **argv, cw_strlist *args, FILE *out,
                  cw_error *err)
{
    int rc = CW_OK;
    struct option *longs = NULL;
    cw_buf shorts;
    cw_buf_init(&shorts);
    char *config = NULL;
    unsigned char *from_flag = calloc(spec->nopts + 1, 1);
    if (!from_flag || getopt_tables(spec, &longs, &shorts) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    for (size_t i = 0; i < spec->nopts; i++)
        if (!cw_opts_value(spec, i)) {
            rc = no_base(&spec->opts[i], err);
            goto done;
        }
    /* 0. which flags are given (and whether they are flags at all) */
    if ((rc = flag_pass(spec, argc, argv, longs, cw_buf_str(&shorts), 0, from_flag, err)) == 1) {
        cw_opts_help(spec, out ? out : stdout);
        goto done;
    }
    if (rc != CW_OK)
        goto done;

    /* 1. defaults */
    for (size_t i = 0; i < spec->nopts; i++) {
        const cw_opt *o = &spec->opts[i];
        if (o->def && (rc = set_value(spec, i, o->def, "default", err)) != CW_OK)
            goto done;
        if (spec->origin)
            spec->origin[i] = CW_OPT_FROM_DEFAULT;
    }

    /* 2. config file: found by a pre-scan so flags can still override it. */
    if (spec->config_file) {
        const char *cfg = getenv("CRONWARDEN_CONFIG");
        for (int i = 1; i < argc; i++) {
            if (strcmp(argv[i], "--") == 0)
                break;
            if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
                cfg = argv[i + 1];
            else if (strncmp(argv[i], "--config=", 9) == 0)
                cfg = argv[i] + 9;
        }
        if (cfg && *cfg) {
            config = strdup(cfg);
            if ((rc = apply_config_file(spec, config, err)) != CW_OK)
                goto done;
        }
    }

    /* 3. environment, for what no flag gives */
    for (size_t i = 0; i < spec->nopts; i++) {
        const cw_opt *o = &spec->opts[i];
        char name[128];
        if (o->no_env || from_flag[i])
            continue;
        cw_opts_env_name(o->name, name, sizeof(name));
        const char *v = getenv(name);
        if (!v)
            continue;
        clear_list(spec, i);
        char source[160];
        snprintf(source, sizeof(source), "environment variable %s", name);
        if ((rc = set_value(spec, i, v, source, err)) != CW_OK)
            goto done;
        if (spec->origin)
            spec->origin[i] = CW_OPT_FROM_ENV;
    }
    warn_unknown_env(spec);

    /* 4. flags */
    if ((rc = flag_pass(spec, argc, argv, longs, cw_buf_str(&shorts), 1, from_flag, err)) != CW_OK)
        goto done;
    for (size_t i = 0; spec->origin && i < spec->nopts; i++)
        if (from_flag[i])
            spec->origin[i] = CW_OPT_FROM_FLAG;
    int npos = argc - optind;
    if (npos < spec->min_args) {
        rc = cw_error_set(err, CW_EUSAGE, "missing argument (usage: %s)", spec->synopsis);
        goto done;
    }
    if (spec->max_args >= 0 && npos > spec->max_args) {
        rc =
            cw_error_set(err, CW_EUSAGE, "unexpected argument '%s'", argv[optind + spec->max_args]);
        goto done;
    }
    for (int i = optind; i < argc && args; i++)
        if (cw_strlist_add(args, argv[i]) != CW_OK) {
            rc = cw_error_oom(err);
            goto done;
        }
done:
    free(from_flag);
    free(config);
    free(longs);
    cw_buf_free(&shorts);
    return rc;
}

static const char *type_metavar(const cw_opt *o)
{
    if (o->metavar)
        return o->metavar;
    switch (o->type) {
    case CW_OPT_INT:
        return "N";
    case CW_OPT_DOUBLE:
        return "NUM";
    case CW_OPT_DURATION:
        return "DURATION";
    case CW_OPT_ENUM:
        return o->choices;
    case CW_OPT_BOOL:
        return NULL;
    default:
        return "VALUE";
    }
}

void cw_opts_help(const cw_cmd_spec *spec, FILE *out)
{
    fprintf(out, "Usage: %s\n\n%s\n\nFlags:\n", spec->synopsis, spec->summary);
    for (size_t i = 0; i < spec->nopts; i++) {
        const cw_opt *o = &spec->opts[i];
        char left[160];
        const char *mv = type_metavar(o);
        if (o->short_name)
            snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name, mv ? " " : "",
                     mv ? mv : "");
        else
            snprintf(left, sizeof(left), "    --%s%s%s", o->name, mv ? " " : "", mv ? mv : "");
        fprintf(out, "  %-34s %s", left, o->help);
        if (o->def && *o->def && o->type != CW_OPT_BOOL)
            fprintf(out, " (default %s)", o->def);
        if (o->type == CW_OPT_LIST)
            fprintf(out, " [repeatable]");
        fputc('\n', out);
    }
    if (spec->config_file)
        fprintf(out, "  %-34s %s\n", "    --config FILE",
                "YAML file whose keys are the flag names above (env CRONWARDEN_CONFIG)");
    fprintf(out, "  %-34s %s\n", "-h, --help", "show this help");
    int any_env = 0;
    for (size_t i = 0; i < spec->nopts; i++)
        any_env |= !spec->opts[i].no_env;
    if (any_env)
        fprintf(out,
                "\nEvery flag can also be set with CRONWARDEN_<FLAG> (upper case, '-' as '_')%s;\n"
                "flags win over the environment%s.\n",
                spec->config_file ? " or in the --config file" : "",
                spec->config_file ? ", the environment over the file" : "");
    if (spec->footer)
        fprintf(out, "\n%s\n", spec->footer);
}

void cw_opts_free(const cw_cmd_spec *spec)
{
    for (size_t i = 0; i < spec->nopts; i++) {
        const cw_opt *o = &spec->opts[i];
        void *t = cw_opts_value(spec, i);
        if (!t)
            continue; /* a row whose base a failed start never gave */
        if (o->type == CW_OPT_STRING || o->type == CW_OPT_ENUM) {
            free(*(char **)t);
            *(char **)t = NULL;
        } else if (o->type == CW_OPT_LIST) {
            cw_strlist_free(t);
        }
    }
}
