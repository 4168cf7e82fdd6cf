/*  =========================================================================
    testutil - helpers shared by the tests: free ports, child processes,
    waiting on events with a deadline (never sleeping to let things settle)
    =========================================================================
*/

#ifndef TESTUTIL_H_INCLUDED
#define TESTUTIL_H_INCLUDED

#include <czmq.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <sys/types.h>

//  Return a TCP port on 127.0.0.1 that was free a moment ago
int
    testutil_free_port (void);

//  Start argv (NULL-terminated) as a child process, its stdout and stderr
//  appended to log_path (or inherited if NULL). Returns the pid, or -1.
pid_t
    testutil_spawn (const char *const argv [], const char *log_path);

//  Wait up to timeout msec for pid to exit. Returns its wait status, or -1
//  on timeout (the child is left running).
int
    testutil_wait_exit (pid_t pid, int timeout);

//  Send SIGTERM, wait up to timeout msec, then SIGKILL; reaps the child
void
    testutil_stop (pid_t pid, int timeout);

//  Read a whole file into a fresh string (caller frees); NULL if unreadable
char *
    testutil_slurp (const char *path);

//  Receive one message on sock within timeout msec; NULL on timeout
zmsg_t *
    testutil_recv (zsock_t *sock, int timeout);

#endif
