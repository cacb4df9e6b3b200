/* Kubernetes name rules (k8s.io/apimachinery/pkg/util/validation) that label keys must pass.
 * Returns the first reason Kubernetes would give, in its wording, or NULL when valid. */
#ifndef CW_K8SNAME_H
#define CW_K8SNAME_H

#include "lib/error.h"

#define CW_K8SNAME_QUALIFIED_MAX 63 /* name part of a qualified name */
#define CW_K8SNAME_SUBDOMAIN_MAX 253

/* A qualified name: [DNS-1123 subdomain "/"] name, name = ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
 * of at most 63 characters. This is the rule for label and annotation keys. */
const char *cw_k8sname_check_qualified(const char *s);
/* A lower-case RFC 1123 subdomain of at most 253 characters. */
const char *cw_k8sname_check_subdomain(const char *s);

/* A lower-case RFC 1123 label of at most 63 characters: the rule for namespace names. */
const char *cw_k8sname_check_label(const char *s);

/* A flag naming a namespace, with one wording in every command: CW_EUSAGE "<flag> \"<ns>\": <why>"
 * (empty allowed when empty_ok). */
int cw_k8sname_check_flag(const char *flag, const char *ns, int empty_ok, cw_error *err);

#endif
