/*  =========================================================================
    testutil_proc - processes, ports and files of a test: free ports on loopback,
    child processes started, reaped and stopped, programs run to their end
    with their output captured, log files read and waited on, temporary
    trees removed
    =========================================================================
*/

#ifndef TESTUTIL_PROC_H_INCLUDED
#define TESTUTIL_PROC_H_INCLUDED

#include "testutil.h"
#include <sys/types.h>

//  Return a TCP port on 127.0.0.1 that was free a moment ago, outside
//  the ephemeral range (its next port too), so that no outgoing
//  connection takes it while its listener restarts
int
    testutil_free_port (void);

//  True if port is free on 127.0.0.1 (a bind on it works)
bool
    testutil_port_free (int port);

//  A free port on loopback whose next one is free too (the events of a
//  broker whose ROUTER is on the first: `drover events` finds them there)
int
    testutil_free_port_pair (void);

//  Start argv (NULL-terminated) as a child process, its stdout and stderr
//  appended to log_path (or inherited if NULL). Returns the pid, or -1.
pid_t
    testutil_spawn (const char *const argv [], const char *log_path);

//  Wait up to timeout msec for pid to exit. Returns its wait status, or -1
//  on timeout (the child is left running).
int
    testutil_wait_exit (pid_t pid, int timeout);

//  Wait up to timeout msec until process pid (a child or not) has ended, on
//  its pidfd; true if it ended (a zombie counts as ended) or never was
bool
    testutil_await_gone (pid_t pid, int timeout);

//  CPU time a process has used so far, msec (utime + stime of
//  /proc/PID/stat); asserts it can read it
int64_t
    testutil_cpu_msec (pid_t pid);

//  Send SIGTERM, wait up to timeout msec, then SIGKILL; reaps the child
void
    testutil_stop (pid_t pid, int timeout);

//  Run argv (NULL-terminated) to its end, its stdout captured into output
//  (NUL-terminated, at most size - 1 bytes kept), its stderr inherited;
//  SIGTERM at the deadline (timeout msec). Returns its wait status, or -1
//  if it had to be stopped.
int
    testutil_run_output (const char *const argv [], char *output, size_t size, int timeout);

//  testutil_run_output with stdin from /dev/null (no terminal) and stderr
//  captured into errors (NUL-terminated, at most errors_size - 1 bytes)
int
    testutil_run_cli (const char *const argv [], char *output, size_t size, char *errors,
                      size_t errors_size, int timeout);

//  Fill argv (size slots, NULL-terminated) with prefix (NULL-terminated),
//  then first and the NULL-terminated rest of args (what does not fit is
//  left out)
void
    testutil_argv_va (const char **argv, size_t size, const char *const prefix [],
                      const char *first, va_list args);

//  testutil_run_cli of prefix, first and the NULL-terminated rest of args,
//  30 s at most; returns the exit status, failing the test (showing both
//  streams) if it did not exit
int
    testutil_run_cli_va (const char *const prefix [], const char *first, va_list args,
                         char *output, size_t size, char *errors, size_t errors_size);

//  Read a whole file into a fresh string (caller frees); NULL if unreadable
char *
    testutil_slurp (const char *path);

//  Count the lines of a file that contain needle, case-insensitively (0 if
//  the file cannot be read)
int
    testutil_count_lines_with (const char *path, const char *needle);

//  Wait up to timeout msec until a line of the file at path contains needle
//  (case-insensitively); false on timeout
bool
    testutil_await_line (const char *path, const char *needle, int timeout);

//  A process's resident set, bytes, from /proc/PID/status (VmRSS);
//  asserts it can be read
size_t
    testutil_rss (pid_t pid);

//  What testutil_each_thread does with one thread: its id, and its /proc
//  file open for reading
typedef void (testutil_thread_fn) (const char *tid, FILE *file, void *arg);

//  Call fn for each thread of pid with its /proc/PID/task/TID/name file
//  (a thread that ended meanwhile is skipped). Returns the threads seen;
//  asserts the process can be read.
int
    testutil_each_thread (pid_t pid, const char *name, testutil_thread_fn *fn, void *arg);

//  Collect into pids (at most max) the processes running `drover worker`
//  with endpoint as one of their arguments: the workers a pool started for
//  a broker; returns how many
size_t
    testutil_worker_pids (const char *endpoint, pid_t *pids, size_t max);

//  Remove a directory, its files and its sub-directories (a test's logs
//  and a broker's state directory)
void
    testutil_remove_tree (const char *path);

#endif
