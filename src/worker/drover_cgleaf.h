/*  =========================================================================
    drover_cgleaf - enables a cgroup v2 controller for the children of the
    worker's own cgroup, moving the worker into a leaf first when it must

    cgroup v2 lets a cgroup other than the root enable controllers for its
    children only while it holds no process itself. Under systemd a worker
    unit with Delegate=yes starts in its unit's cgroup, so the worker must
    step down into a leaf of its own (as systemd.resource-control(5) asks of
    delegated services) before it can give its tasks a memory limit. It
    moves only its own processes (itself and its children, the confinement
    supervisor); a cgroup shared with others (a login session's) is left as
    it is, and the reason says so. Plain functions, no state.
    =========================================================================
*/

#ifndef DROVER_CGLEAF_H_INCLUDED
#define DROVER_CGLEAF_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DROVER_CGLEAF_NAME  "drover-agent"     //  the leaf the worker moves into

//  Enable controller (e.g. "memory") in own/cgroup.subtree_control. If the
//  kernel refuses because own holds processes, and every one of them is
//  this process or a child of it, move them into own/DROVER_CGLEAF_NAME and
//  try again. Returns 0 (*moved_p set if it moved), or -1 with the reason
//  in why (size bytes).
int
    drover_cgleaf_enable (const char *own, const char *controller, bool *moved_p,
                          char *why, size_t size);

#ifdef __cplusplus
}
#endif

#endif
