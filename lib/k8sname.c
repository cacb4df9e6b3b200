#include "lib/k8sname.h"

#include <string.h>

static int alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)* over s[0..n) */
static int subdomain_ok(const char *s, size_t n)
{
    size_t label_start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            if (i == label_start || !lower_alnum(s[label_start]) || !lower_alnum(s[i - 1]))
                return 0;
            label_start = i + 1;
        } else if (!lower_alnum(s[i]) && s[i] != '-') {
            return 0;
        }
    }
    return 1;
}

const char *cw_k8sname_check_subdomain(const char *s)
{
    size_t n = strlen(s);
    if (n > CW_K8SNAME_SUBDOMAIN_MAX)
        return "must be no more than 253 characters";
    if (!subdomain_ok(s, n))
        return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
               "characters, '-' or '.', and must start and end with an alphanumeric character";
    return NULL;
}

const char *cw_k8sname_check_qualified(const char *s)
{
    const char *slash = strchr(s, '/');
    const char *name = s;
    if (slash) {
        size_t plen = (size_t)(slash - s);
        if (strchr(slash + 1, '/'))
            return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', "
                   "and must start and end with an alphanumeric character, with an optional DNS "
                   "subdomain prefix and '/' (e.g. 'example.com/MyName')";
        if (plen == 0)
            return "prefix part must be non-empty";
        if (plen > CW_K8SNAME_SUBDOMAIN_MAX)
            return "prefix part must be no more than 253 characters";
        if (!subdomain_ok(s, plen))
            return "prefix part a lowercase RFC 1123 subdomain must consist of lower case "
                   "alphanumeric characters, '-' or '.', and must start and end with an "
                   "alphanumeric character";
        name = slash + 1;
    }
    size_t n = strlen(name);
    if (n == 0)
        return "name part must be non-empty";
    if (n > CW_K8SNAME_QUALIFIED_MAX)
        return "name part must be no more than 63 characters";
    int ok = alnum(name[0]) && alnum(name[n - 1]);
    for (size_t i = 1; ok && i + 1 < n; i++)
        ok = alnum(name[i]) || name[i] == '-' || name[i] == '_' || name[i] == '.';
    if (!ok)
        return "name part must consist of alphanumeric characters, '-', '_' or '.', and must "
               "start and end with an alphanumeric character";
    return NULL;
}

const char *cw_k8sname_check_label(const char *s)
{
    size_t n = strlen(s);
    if (n > 63)
        return "must be no more than 63 characters";
    if (!subdomain_ok(s, n) || strchr(s, '.'))
        return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
               "'-', and must start and end with an alphanumeric character";
    return NULL;
}

int cw_k8sname_check_flag(const char *flag, const char *ns, int empty_ok, cw_error *err)
{
    const char *why = ns && *ns  ? cw_k8sname_check_label(ns)
                      : empty_ok ? NULL
                                 : "must not be empty";
    return why ? cw_error_set(err, CW_EUSAGE, "%s \"%s\": %s", flag, ns ? ns : "", why) : CW_OK;
}
