/* kubeconfig files: loading, kubectl's merge rules, and resolution of one context into a
 * cw_kube_config. The merge is never materialised: a lookup scans the files in order and the
 * first file that defines a name wins, which is exactly kubectl's rule for the named maps. */
#include "kube/config.h"
#include "kube/internal.h"
#include "lib/base64.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "lib/yaml.h"

typedef struct kc_file {
    char *path;
    json_object *root; /* NULL for an empty file */
} kc_file;

typedef struct kc_set {
    kc_file *files;
    size_t len;
    char *label; /* the files joined with ':' */
} kc_set;

/* One named entry of clusters/users/contexts. */
typedef struct kc_entry {
    const char *kind; /* "cluster", "user", "context" */
    const char *name;
    json_object *body;
    const kc_file *file;
} kc_entry;

static void kc_set_free(kc_set *s)
{
    for (size_t i = 0; i < s->len; i++) {
        free(s->files[i].path);
        json_object_put(s->files[i].root);
    }
    free(s->files);
    free(s->label);
    memset(s, 0, sizeof(*s));
}

static int oom(cw_error *err)
{
    return cw_error_set(err, CW_ENOMEM, "out of memory loading the kubeconfig");
}

static int kc_load(const cw_strlist *files, kc_set *s, cw_error *err)
{
    int rc = CW_OK;
    cw_yaml_docs docs;
    cw_strlist found;
    cw_yaml_docs_init(&docs);
    cw_strlist_init(&found);
    s->files = calloc(files->len ? files->len : 1, sizeof(*s->files));
    if (!s->files) {
        rc = oom(err);
        goto done;
    }
    for (size_t i = 0; i < files->len; i++) {
        const char *path = files->items[i];
        struct stat st;
        if (stat(path, &st) != 0 && errno == ENOENT)
            continue; /* kubectl skips missing files in a list */
        cw_yaml_docs_free(&docs);
        if ((rc = cw_yaml_parse_file(path, &docs, err)) != CW_OK)
            goto done;
        json_object *root = NULL;
        for (size_t d = 0; d < docs.len && !root; d++)
            root = docs.items[d].value;
        if (root && !json_object_is_type(root, json_type_object)) {
            rc = cw_error_set(err, CW_EINVAL, "%s: expected a mapping at the top level, got %s",
                              path, cw_json_type_name(root));
            goto done;
        }
        kc_file *f = &s->files[s->len];
        if (!(f->path = strdup(path)) || cw_strlist_add(&found, path) != CW_OK) {
            free(f->path);
            rc = oom(err);
            goto done;
        }
        f->root = json_object_get(root);
        s->len++;
    }
    if (s->len == 0) {
        char *all = cw_strlist_join(files, ":");
        rc = cw_error_set(err, CW_ENOTFOUND, "kubeconfig %s: no such file", all ? all : "");
        free(all);
        goto done;
    }
    if (!(s->label = cw_strlist_join(&found, ":")))
        rc = oom(err);
done:
    cw_yaml_docs_free(&docs);
    cw_strlist_free(&found);
    return rc;
}

/* A scalar as text (names like `y` or `1` resolve to booleans or numbers in YAML 1.1; kubectl
 * reads them back as text), or NULL. */
static const char *scalar_text(json_object *v)
{
    if (!v || json_object_is_type(v, json_type_null) || json_object_is_type(v, json_type_object) ||
        json_object_is_type(v, json_type_array))
        return NULL;
    return json_object_get_string(v);
}

/* A string field; YAML scalars that resolved to numbers or booleans are taken as written (as
 * sigs.k8s.io/yaml does for string fields). */
static int kc_string(const kc_entry *e, const char *key, const char **out, cw_error *err)
{
    json_object *v = cw_json_member(e->body, key);
    *out = NULL;
    if (!v || json_object_is_type(v, json_type_null))
        return CW_OK;
    if (json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array))
        return cw_error_set(err, CW_EINVAL, "%s: %s \"%s\": %s: expected string, got %s",
                            e->file->path, e->kind, e->name, key, cw_json_type_name(v));
    *out = json_object_get_string(v);
    if (*out && !**out)
        *out = NULL;
    return CW_OK;
}

static int kc_bool(const kc_entry *e, const char *key, int *out, cw_error *err)
{
    json_object *v = cw_json_member(e->body, key);
    *out = 0;
    if (!v || json_object_is_type(v, json_type_null))
        return CW_OK;
    if (json_object_is_type(v, json_type_boolean)) {
        *out = json_object_get_boolean(v);
        return CW_OK;
    }
    const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
    if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0) {
        *out = s[0] == 't';
        return CW_OK;
    }
    return cw_error_set(err, CW_EINVAL, "%s: %s \"%s\": %s: expected true or false, got %s",
                        e->file->path, e->kind, e->name, key, cw_json_type_name(v));
}

/* Finds `name` in the list `list_key` ("clusters") of the first file that has it. CW_ENOTFOUND
 * without a message when no file does. */
static int kc_find(const kc_set *s, const char *list_key, const char *kind, const char *name,
                   kc_entry *out, cw_error *err)
{
    for (size_t i = 0; i < s->len; i++) {
        const kc_file *f = &s->files[i];
        json_object *list = cw_json_member(f->root, list_key);
        if (!list || json_object_is_type(list, json_type_null))
            continue;
        if (!json_object_is_type(list, json_type_array))
            return cw_error_set(err, CW_EINVAL, "%s: %s: expected a list, got %s", f->path,
                                list_key, cw_json_type_name(list));
        size_t n = json_object_array_length(list);
        for (size_t j = 0; j < n; j++) {
            json_object *item = json_object_array_get_idx(list, j);
            const char *item_name = scalar_text(cw_json_member(item, "name"));
            if (!item_name)
                return cw_error_set(err, CW_EINVAL, "%s: %s[%zu]: name is missing", f->path,
                                    list_key, j);
            if (strcmp(item_name, name) != 0)
                continue;
            json_object *body = cw_json_member(item, kind);
            if (body && !json_object_is_type(body, json_type_object) &&
                !json_object_is_type(body, json_type_null))
                return cw_error_set(err, CW_EINVAL, "%s: %s \"%s\": %s: expected a mapping, got %s",
                                    f->path, kind, name, kind, cw_json_type_name(body));
            out->kind = kind;
            out->name = item_name;
            out->body = body;
            out->file = f;
            return CW_OK;
        }
    }
    return CW_ENOTFOUND;
}

/* Names of every context, for a hint when none is selected. */
static char *kc_context_names(const kc_set *s)
{
    cw_strlist names;
    cw_strlist_init(&names);
    for (size_t i = 0; i < s->len; i++) {
        json_object *list = cw_json_member(s->files[i].root, "contexts");
        size_t n = json_object_is_type(list, json_type_array) ? json_object_array_length(list) : 0;
        for (size_t j = 0; j < n; j++) {
            const char *name =
                scalar_text(cw_json_member(json_object_array_get_idx(list, j), "name"));
            if (name && !cw_strlist_contains(&names, name))
                cw_strlist_add(&names, name);
        }
    }
    char *joined = names.len ? cw_strlist_join(&names, ", ") : strdup("none");
    cw_strlist_free(&names);
    return joined;
}

/* Absolute form of a path written in `file`: relative paths are relative to its directory. */
static int kc_resolve(const kc_file *file, const char *p, cw_buf *out, cw_error *err)
{
    cw_buf_reset(out);
    if (p[0] != '/') {
        const char *slash = strrchr(file->path, '/');
        if (slash && cw_buf_append(out, file->path, (size_t)(slash - file->path) + 1) != CW_OK)
            return oom(err);
    }
    if (cw_buf_puts(out, p) != CW_OK)
        return oom(err);
    return CW_OK;
}

/* PEM material from `<field>-data` (base64) or `<field>` (a file); data wins as in kubectl. */
static int kc_pem(const kc_entry *e, const char *field, cw_kube_pem_kind kind, char **pem,
                  size_t *len, cw_error *err)
{
    int rc = CW_OK;
    char data_key[64];
    const char *data = NULL, *file = NULL;
    cw_buf path;
    cw_buf_init(&path);
    *pem = NULL;
    *len = 0;
    snprintf(data_key, sizeof(data_key), "%s-data", field);
    if ((rc = kc_string(e, data_key, &data, err)) != CW_OK ||
        (rc = kc_string(e, field, &file, err)) != CW_OK)
        goto done;
    if (data) {
        rc = cw_base64_decode(data, strlen(data), pem, len);
        if (rc == CW_ENOMEM) {
            rc = oom(err);
            goto done;
        }
        if (rc != CW_OK) {
            rc = cw_error_set(err, CW_EINVAL, "%s: %s \"%s\": %s is not valid base64",
                              e->file->path, e->kind, e->name, data_key);
            goto done;
        }
        if ((rc = cw_kube_pem_check(*pem, *len, kind, err)) != CW_OK) {
            cw_error_prefix(err, "%s: %s \"%s\": %s (decoded)", e->file->path, e->kind, e->name,
                            data_key);
            goto done;
        }
    } else if (file) {
        if ((rc = kc_resolve(e->file, file, &path, err)) != CW_OK)
            goto done;
        if ((rc = cw_file_read(cw_buf_str(&path), pem, len, err)) != CW_OK) {
            cw_error_prefix(err, "%s: %s \"%s\": %s", e->file->path, e->kind, e->name, field);
            goto done;
        }
        if ((rc = cw_kube_pem_check(*pem, *len, kind, err)) != CW_OK) {
            cw_error_prefix(err, "%s: %s \"%s\": %s %s", e->file->path, e->kind, e->name, field,
                            cw_buf_str(&path));
            goto done;
        }
    }
done:
    if (rc != CW_OK) {
        free(*pem);
        *pem = NULL;
        *len = 0;
    }
    cw_buf_free(&path);
    return rc;
}

static int kc_cluster(const kc_entry *e, cw_kube_config *cfg, cw_error *err)
{
    int rc;
    const char *server = NULL, *sni = NULL;
    if ((rc = kc_string(e, "server", &server, err)) != CW_OK ||
        (rc = kc_string(e, "tls-server-name", &sni, err)) != CW_OK ||
        (rc = kc_bool(e, "insecure-skip-tls-verify", &cfg->insecure_skip_tls_verify, err)) != CW_OK)
        return rc;
    if (!server)
        return cw_error_set(err, CW_EINVAL, "%s: cluster \"%s\": server is not set", e->file->path,
                            e->name);
    /* A bare host:port means https, as in client-go. */
    int bare = strncmp(server, "https://", 8) != 0 && strncmp(server, "http://", 7) != 0;
    if (bare && strstr(server, "://"))
        return cw_error_set(err, CW_EINVAL,
                            "%s: cluster \"%s\": server \"%s\" is not an http(s) URL",
                            e->file->path, e->name, server);
    cw_buf url;
    cw_buf_init(&url);
    if (cw_buf_printf(&url, "%s%s", bare ? "https://" : "", server) != CW_OK) {
        cw_buf_free(&url);
        return oom(err);
    }
    while (url.len > 0 && url.data[url.len - 1] == '/')
        url.data[--url.len] = '\0';
    if (!(cfg->server = cw_buf_detach(&url)))
        return oom(err);
    if (sni && !(cfg->tls_server_name = strdup(sni)))
        return oom(err);
    if ((rc = kc_pem(e, "certificate-authority", CW_KUBE_PEM_CA, &cfg->ca_pem, &cfg->ca_pem_len,
                     err)) != CW_OK)
        return rc;
    if (cfg->ca_pem && cfg->insecure_skip_tls_verify)
        return cw_error_set(err, CW_EINVAL,
                            "%s: cluster \"%s\": certificate-authority and "
                            "insecure-skip-tls-verify cannot both be set",
                            e->file->path, e->name);
    return CW_OK;
}

static int kc_user(const kc_entry *e, cw_kube_config *cfg, cw_error *err)
{
    int rc = CW_OK;
    const char *token = NULL, *token_file = NULL, *user = NULL, *pass = NULL;
    cw_buf path;
    cw_buf_init(&path);
    if ((rc = kc_string(e, "token", &token, err)) != CW_OK ||
        (rc = kc_string(e, "tokenFile", &token_file, err)) != CW_OK ||
        (rc = kc_string(e, "username", &user, err)) != CW_OK ||
        (rc = kc_string(e, "password", &pass, err)) != CW_OK)
        goto done;
    if (token) {
        /* kubectl: a token wins over tokenFile. */
        if (!(cfg->token = strdup(token))) {
            rc = oom(err);
            goto done;
        }
    } else if (token_file) {
        if ((rc = kc_resolve(e->file, token_file, &path, err)) != CW_OK)
            goto done;
        if ((rc = cw_kube_read_trimmed(cw_buf_str(&path), &cfg->token, err)) != CW_OK) {
            cw_error_prefix(err, "%s: user \"%s\": tokenFile", e->file->path, e->name);
            goto done;
        }
        if (!(cfg->token_file = cw_buf_detach(&path))) {
            rc = oom(err);
            goto done;
        }
    }
    if ((user && !(cfg->username = strdup(user))) || (pass && !(cfg->password = strdup(pass)))) {
        rc = oom(err);
        goto done;
    }
    if ((rc = kc_pem(e, "client-certificate", CW_KUBE_PEM_CERT, &cfg->cert_pem, &cfg->cert_pem_len,
                     err)) != CW_OK ||
        (rc = kc_pem(e, "client-key", CW_KUBE_PEM_KEY, &cfg->key_pem, &cfg->key_pem_len, err)) !=
            CW_OK)
        goto done;
    if (!cfg->cert_pem != !cfg->key_pem) {
        rc = cw_error_set(err, CW_EINVAL, "%s: user \"%s\": %s is set but %s is not", e->file->path,
                          e->name, cfg->cert_pem ? "client-certificate" : "client-key",
                          cfg->cert_pem ? "client-key" : "client-certificate");
        goto done;
    }
    if (cfg->cert_pem &&
        (rc = cw_kube_pem_check_pair(cfg->cert_pem, cfg->cert_pem_len, cfg->key_pem,
                                     cfg->key_pem_len, err)) != CW_OK) {
        cw_error_prefix(err, "%s: user \"%s\"", e->file->path, e->name);
        goto done;
    }
    if (!cfg->token && !cfg->cert_pem && !cfg->username &&
        (cw_json_member(e->body, "exec") || cw_json_member(e->body, "auth-provider"))) {
        rc = cw_error_set(err, CW_EINVAL,
                          "%s: user \"%s\": exec and auth-provider credential plugins are not "
                          "supported; use token, tokenFile or client-certificate/client-key",
                          e->file->path, e->name);
        goto done;
    }
done:
    cw_buf_free(&path);
    return rc;
}

int cw_kube_config_load_kubeconfig(cw_kube_config *c, const cw_strlist *files, const char *context,
                                   cw_error *err)
{
    int rc = CW_OK;
    kc_set set = {0};
    cw_kube_config cfg;
    kc_entry ctx, cluster, user;
    const char *cluster_name = NULL, *user_name = NULL, *ns = NULL;
    char *names = NULL;
    cw_buf source;
    cw_kube_config_init(&cfg);
    cw_buf_init(&source);

    if ((rc = kc_load(files, &set, err)) != CW_OK)
        goto done;

    const char *current = context && *context ? context : NULL;
    for (size_t i = 0; i < set.len && !current; i++) {
        const char *cc = scalar_text(cw_json_member(set.files[i].root, "current-context"));
        if (cc && *cc)
            current = cc;
    }
    if (!current) {
        names = kc_context_names(&set);
        rc = cw_error_set(err, CW_EINVAL,
                          "%s: current-context is not set and no context was given "
                          "(contexts: %s)",
                          set.label, names ? names : "?");
        goto done;
    }
    rc = kc_find(&set, "contexts", "context", current, &ctx, err);
    if (rc == CW_ENOTFOUND) {
        names = kc_context_names(&set);
        rc = cw_error_set(err, CW_ENOTFOUND, "%s: context \"%s\" not found (contexts: %s)",
                          set.label, current, names ? names : "?");
    }
    if (rc != CW_OK)
        goto done;
    if ((rc = kc_string(&ctx, "cluster", &cluster_name, err)) != CW_OK ||
        (rc = kc_string(&ctx, "user", &user_name, err)) != CW_OK ||
        (rc = kc_string(&ctx, "namespace", &ns, err)) != CW_OK)
        goto done;
    if (!cluster_name) {
        rc = cw_error_set(err, CW_EINVAL, "%s: context \"%s\": cluster is not set", ctx.file->path,
                          current);
        goto done;
    }
    rc = kc_find(&set, "clusters", "cluster", cluster_name, &cluster, err);
    if (rc == CW_ENOTFOUND)
        rc = cw_error_set(err, CW_ENOTFOUND, "%s: context \"%s\": cluster \"%s\" not found",
                          ctx.file->path, current, cluster_name);
    if (rc != CW_OK || (rc = kc_cluster(&cluster, &cfg, err)) != CW_OK)
        goto done;
    if (user_name) {
        rc = kc_find(&set, "users", "user", user_name, &user, err);
        if (rc == CW_ENOTFOUND)
            rc = cw_error_set(err, CW_ENOTFOUND, "%s: context \"%s\": user \"%s\" not found",
                              ctx.file->path, current, user_name);
        if (rc != CW_OK || (rc = kc_user(&user, &cfg, err)) != CW_OK)
            goto done;
    }
    if (!(cfg.namespace = strdup(ns ? ns : "default")) || !(cfg.context = strdup(current)) ||
        cw_buf_printf(&source, "kubeconfig %s, context \"%s\"", set.label, current) != CW_OK ||
        !(cfg.source = cw_buf_detach(&source))) {
        rc = oom(err);
        goto done;
    }
    cw_kube_config_free(c);
    *c = cfg;
    cw_kube_config_init(&cfg);
done:
    free(names);
    cw_kube_config_free(&cfg);
    cw_buf_free(&source);
    kc_set_free(&set);
    return rc;
}
