/* The namespaces a Velero Backup covers, for the backup queue's overlap rule (Velero 1.18):
 * spec.includedNamespaces and spec.excludedNamespaces resolved against the live Namespaces.
 *   - no includes, or an include "*": every live namespace;
 *   - an include with Velero's wildcards (`*`, `?`, `[abc]`, `[a-z]` inside a name): the live
 *     namespaces it matches; a plain name: that name, live or not (a namespace created while the
 *     Backup waits is still its own, so two Backups of it never run together);
 *   - excludes (plain or wildcard) are taken away;
 *   - a pattern Velero refuses (`**`, any of `|(){}!,`, an unclosed `[`) or a list that is not a
 *     list of strings: no namespace at all (no conflict; Velero's backup controller fails such a
 *     Backup when it starts it). Pure. */
#ifndef CW_BQ_NS_H
#define CW_BQ_NS_H

#include <json-c/json.h>

#include "lib/error.h"
#include "lib/strlist.h"

/* 1 when Velero refuses the pattern. */
int cw_bq_pattern_refused(const char *pattern);
/* 1 when the pattern has a wildcard (`*`, `?`, `[`). */
int cw_bq_pattern_has_wildcard(const char *pattern);
/* 1 when name matches the (accepted) pattern: `*` any run of characters, `?` one, `[abc]` and
 * `[a-z]` one of a set. */
int cw_bq_glob_match(const char *pattern, const char *name);

/* The namespaces backup covers into out (empty on entry; sorted, each once). live: the live
 * namespaces. *refused (may be NULL) is set to a description of the refused pattern or field (""
 * when none; out has room for 160 bytes) — then out stays empty. CW_ENOMEM only. */
int cw_bq_backup_namespaces(json_object *backup, const cw_strlist *live, cw_strlist *out,
                            char *refused, size_t refusedlen, cw_error *err) CW_MUST_CHECK;

#endif
