/* Failpoints for crash and race tests, off unless CRONWARDEN_FAILPOINTS is set:
 *   CRONWARDEN_FAILPOINTS="sc-after-delete=kill,volume-patch=wait:/tmp/go,rj-create=kill@3"
 *   kill       SIGKILL this process at the point (as a node failure would)
 *   kill@N     ... at the N-th time the point is reached
 *   wait:PATH  block at the point until PATH exists (lets a test change the cluster meanwhile)
 * The setting is read once (process configuration); an unset variable costs one branch. */
#ifndef CW_FAILPOINT_H
#define CW_FAILPOINT_H

void cw_failpoint(const char *name);

#endif
