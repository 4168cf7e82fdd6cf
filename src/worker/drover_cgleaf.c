/*  =========================================================================
    drover_cgleaf - enables a cgroup v2 controller for the children of the
    worker's own cgroup, moving the worker into a leaf first when it must

    See the header. The kernel answers EBUSY when a cgroup that holds
    processes is asked to enable a domain controller (memory, pids, ...)
    for its children; the root cgroup is exempt.
    =========================================================================
*/

#include "drover_cgleaf.h"
#include "drover_cgfile.h"
#include <limits.h>
#include <sys/stat.h>

//  Return the parent pid of pid from /proc/PID/stat, or -1. The command
//  name, in parentheses, may hold anything: the fields after its last ')'
//  are the state and the parent.
static pid_t
s_parent_of (pid_t pid)
{
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
    char *stat = drover_cgfile_read (path);
    char *close = stat? strrchr (stat, ')'): NULL;
    int parent = -1;
    if (!close || sscanf (close + 1, " %*c %d", &parent) != 1)
        parent = -1;
    free (stat);
    return (pid_t) parent;
}

//  Tell whether every process listed in procs (one pid per line) is this
//  process or a child of it; else say which is not in why
static bool
s_all_ours (const char *procs, char *why, size_t size)
{
    pid_t self = getpid ();
    for (const char *cursor = procs; cursor && *cursor; ) {
        int pid = atoi (cursor);
        if (pid > 0 && pid != self && s_parent_of (pid) != self) {
            snprintf (why, size, "it holds processes other than this worker's (pid %d): run "
                      "the worker as the only process of its cgroup, such as the main process "
                      "of a systemd unit with Delegate=yes", pid);
            return false;
        }
        cursor += strcspn (cursor, "\n");
        cursor += strspn (cursor, "\n");
    }
    return true;
}

//  Move every process listed in procs into the cgroup directory leaf.
//  0, or -1 with errno set.
static int
s_move_all (const char *procs, const char *leaf)
{
    for (const char *cursor = procs; cursor && *cursor; ) {
        char pid [32];
        size_t span = strcspn (cursor, "\n");
        snprintf (pid, sizeof pid, "%.*s", (int) (span < 31? span: 31), cursor);
        if (*pid && drover_cgfile_write (leaf, "cgroup.procs", pid) == -1 && errno != ESRCH)
            return -1;          //  a child that has just ended is no longer there to move
        cursor += span;
        cursor += strspn (cursor, "\n");
    }
    return 0;
}

//  Enable controller for own's children, moving our processes into a leaf
//  when own holds them
int
drover_cgleaf_enable (const char *own, const char *controller, bool *moved_p,
                      char *why, size_t size)
{
    assert (own);
    assert (controller);
    if (moved_p)
        *moved_p = false;
    char path [PATH_MAX + 32];
    snprintf (path, sizeof path, "%s/cgroup.subtree_control", own);
    char *enabled = drover_cgfile_read (path);
    bool has = drover_cgfile_lists (enabled, controller, " \n");
    free (enabled);
    if (has)
        return 0;
    char change [64];
    snprintf (change, sizeof change, "+%s", controller);
    if (drover_cgfile_write (own, "cgroup.subtree_control", change) == 0)
        return 0;
    if (errno != EBUSY) {
        snprintf (why, size, "cannot enable %s in %s: %s", controller, path, strerror (errno));
        return -1;
    }
    snprintf (path, sizeof path, "%s/cgroup.procs", own);
    char *procs = drover_cgfile_read (path);
    char reason [PATH_MAX + 256] = "";
    char leaf [PATH_MAX + 32];
    snprintf (leaf, sizeof leaf, "%s/%s", own, DROVER_CGLEAF_NAME);
    int rc = -1;
    if (!procs)
        snprintf (reason, sizeof reason, "cannot read its cgroup.procs: %s", strerror (errno));
    else
    if (!s_all_ours (procs, reason, sizeof reason))
        ;                       //  reason says whose
    else
    if (mkdir (leaf, 0755) == -1 && errno != EEXIST)
        snprintf (reason, sizeof reason, "cannot make %s: %s", leaf, strerror (errno));
    else
    if (s_move_all (procs, leaf) == -1)
        snprintf (reason, sizeof reason, "cannot move this worker into %s: %s", leaf,
                  strerror (errno));
    else {
        if (moved_p)
            *moved_p = true;
        rc = drover_cgfile_write (own, "cgroup.subtree_control", change);
        if (rc == -1)
            snprintf (reason, sizeof reason, "%s", strerror (errno));
    }
    free (procs);
    if (rc == -1)
        snprintf (why, size, "cannot enable %s in %s/cgroup.subtree_control: %s", controller,
                  own, reason);
    return rc;
}
