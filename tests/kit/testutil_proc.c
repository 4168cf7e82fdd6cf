/*  =========================================================================
    testutil_proc - processes, ports and files of a test (see the header)
    =========================================================================
*/

#define _GNU_SOURCE             //  strcasestr
#include "testutil_proc.h"
#include "drover_loopport.h"
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

//  A port on loopback that was free a moment ago, outside the ephemeral
//  range (drover_loopport): a broker killed and started again on its
//  ports finds them free
int
testutil_free_port (void)
{
    int port = drover_loopport_free ();
    assert (port > 0);
    return port;
}

//  True if port is free on 127.0.0.1 (a bind works)
bool
testutil_port_free (int port)
{
    return drover_loopport_is_free (port);
}

//  A free port whose next one is free too: a broker's ROUTER and, on the
//  next port, its events, as `drover events` finds them
int
testutil_free_port_pair (void)
{
    while (true) {
        int port = testutil_free_port ();
        if (testutil_port_free (port + 1))
            return port;
    }
}

//  In a child just forked by parent: die with the test. A test that fails
//  leaves its body at the failed assertion, before its brokers and
//  workers are stopped; they must not live on to take ports, CPU and
//  files from the tests after it.
static void
s_die_with_parent (pid_t parent)
{
    prctl (PR_SET_PDEATHSIG, SIGKILL);
    if (getppid () != parent)
        _exit (127);            //  the test ended before the call took effect
}

//  Fork and exec argv with output going to log_path
pid_t
testutil_spawn (const char *const argv [], const char *log_path)
{
    pid_t parent = getpid ();
    pid_t pid = fork ();
    if (pid != 0)
        return pid;             //  parent (or -1)
    s_die_with_parent (parent);
    if (log_path) {
        int fd = open (log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            dup2 (fd, 1);
            dup2 (fd, 2);
            close (fd);
        }
    }
    execv (argv [0], (char *const *) argv);
    _exit (127);
}

//  Poll waitpid until the child exits or the deadline passes
int
testutil_wait_exit (pid_t pid, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (true) {
        int status;
        pid_t rc = waitpid (pid, &status, WNOHANG);
        if (rc == pid)
            return status;
        if (rc < 0 || zclock_mono () >= deadline)
            return -1;
        zclock_sleep (10);      //  polling a child's exit, not settling state
    }
}

//  Terminate politely, then firmly
void
testutil_stop (pid_t pid, int timeout)
{
    if (pid <= 0)
        return;
    kill (pid, SIGTERM);
    if (testutil_wait_exit (pid, timeout) == -1) {
        kill (pid, SIGKILL);
        waitpid (pid, NULL, 0);
    }
}

static int
    s_run_output (const char *const argv [], char *output, size_t size, int timeout,
                  int err_fd);

//  Read the child's stdout on a pipe until it closes it or the deadline
int
testutil_run_output (const char *const argv [], char *output, size_t size, int timeout)
{
    return s_run_output (argv, output, size, timeout, -1);
}

//  Run a command as a user would without a terminal: stdin /dev/null,
//  stdout and stderr apart
int
testutil_run_cli (const char *const argv [], char *output, size_t size, char *errors,
                  size_t errors_size, int timeout)
{
    char path [] = "/tmp/drover-cli-stderr-XXXXXX";
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    unlink (path);
    int status = s_run_output (argv, output, size, timeout, fd);
    ssize_t got = pread (fd, errors, errors_size - 1, 0);
    errors [got > 0? got: 0] = 0;
    close (fd);
    return status;
}

//  Run argv with its stdout on a pipe read into output, its stderr to
//  err_fd (-1: inherited; then stdin is inherited too, else /dev/null)
static int
s_run_output (const char *const argv [], char *output, size_t size, int timeout, int err_fd)
{
    int fds [2];
    assert_int_equal (pipe (fds), 0);
    fflush (stdout);
    fflush (stderr);
    pid_t parent = getpid ();
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        s_die_with_parent (parent);
        dup2 (fds [1], STDOUT_FILENO);
        close (fds [0]);
        close (fds [1]);
        if (err_fd >= 0) {
            dup2 (err_fd, STDERR_FILENO);
            int null = open ("/dev/null", O_RDONLY);
            if (null >= 0)
                dup2 (null, STDIN_FILENO);
        }
        execv (argv [0], (char *const *) argv);
        _exit (127);
    }
    close (fds [1]);
    size_t used = 0;
    int64_t deadline = zclock_mono () + timeout;
    bool killed = false;
    while (true) {
        int64_t left = deadline - zclock_mono ();
        if (left <= 0) {
            kill (pid, SIGTERM);        //  benchmarks stop their brokers on SIGTERM
            killed = true;
            break;
        }
        struct pollfd item = { .fd = fds [0], .events = POLLIN };
        if (poll (&item, 1, (int) left) <= 0)
            continue;
        char buffer [4096];
        ssize_t got = read (fds [0], buffer, sizeof buffer);
        if (got <= 0)
            break;                      //  end of output: the program is done
        size_t take = (size_t) got < size - 1 - used? (size_t) got: size - 1 - used;
        memcpy (output + used, buffer, take);
        used += take;
    }
    output [used] = 0;
    close (fds [0]);
    int status = 0;
    int64_t grace = zclock_mono () + 10000;
    while (waitpid (pid, &status, WNOHANG) == 0) {
        if (zclock_mono () >= grace)
            kill (pid, SIGKILL);        //  did not stop on SIGTERM either
        zclock_sleep (10);              //  polling the child's exit, not settling
    }
    return killed? -1: status;
}

//  Read a file into memory
char *
testutil_slurp (const char *path)
{
    FILE *file = fopen (path, "rb");
    if (!file)
        return NULL;
    fseek (file, 0, SEEK_END);
    long size = ftell (file);
    fseek (file, 0, SEEK_SET);
    char *data = (char *) zmalloc (size + 1);
    size_t got = fread (data, 1, size, file);
    data [got] = 0;
    fclose (file);
    return data;
}

//  Count the lines of a file that contain needle, case-insensitively
int
testutil_count_lines_with (const char *path, const char *needle)
{
    char *text = testutil_slurp (path);
    int count = 0;
    char *saved = NULL;
    for (char *line = text? strtok_r (text, "\n", &saved): NULL; line;
         line = strtok_r (NULL, "\n", &saved))
        count += strcasestr (line, needle) != NULL;
    free (text);
    return count;
}

//  Read the file again until the line shows or the deadline passes
bool
testutil_await_line (const char *path, const char *needle, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (testutil_count_lines_with (path, needle) == 0) {
        if (zclock_mono () >= deadline)
            return false;
        zclock_sleep (10);      //  paces reading the file; the deadline bounds the wait
    }
    return true;
}

//  A process's resident set, from /proc/PID/status
size_t
testutil_rss (pid_t pid)
{
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
    FILE *file = fopen (path, "r");
    assert_non_null (file);
    char line [256];
    size_t kib = 0;
    while (fgets (line, sizeof line, file))
        if (strncmp (line, "VmRSS:", 6) == 0)
            kib = strtoul (line + 6, NULL, 10);
    fclose (file);
    assert_true (kib > 0);
    return kib * 1024;
}

//  Call fn for each thread of a process with one of its /proc files
int
testutil_each_thread (pid_t pid, const char *name, testutil_thread_fn *fn, void *arg)
{
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/task", (int) pid);
    DIR *tasks = opendir (path);
    assert_non_null (tasks);
    int threads = 0;
    struct dirent *entry;
    while ((entry = readdir (tasks))) {
        if (entry->d_name [0] == '.')
            continue;
        char file_path [sizeof path + sizeof entry->d_name + 32];
        snprintf (file_path, sizeof file_path, "%s/%s/%s", path, entry->d_name, name);
        FILE *file = fopen (file_path, "r");
        if (!file)
            continue;           //  a thread that ended meanwhile
        fn (entry->d_name, file, arg);
        fclose (file);
        threads++;
    }
    closedir (tasks);
    return threads;
}

//  Remove a log directory and its files, and the broker's state directory
//  in it; reached only when a test passed, since a failed assertion skips
//  teardown, so failures keep their logs
void
testutil_remove_tree (const char *logdir)
{
    DIR *dir = opendir (logdir);
    if (!dir)
        return;
    struct dirent *entry;
    while ((entry = readdir (dir)))
        if (entry->d_name [0] != '.') {
            char path [PATH_MAX];
            snprintf (path, sizeof path, "%s/%s", logdir, entry->d_name);
            if (entry->d_type == DT_DIR)
                testutil_remove_tree (path);
            else
                unlink (path);
        }
    closedir (dir);
    rmdir (logdir);
}

//  Wait until a process (any, not only a child) has ended, on its pidfd
bool
testutil_await_gone (pid_t pid, int timeout)
{
    int fd = (int) syscall (SYS_pidfd_open, pid, 0);
    if (fd == -1)
        return errno == ESRCH;          //  gone already
    struct pollfd item = { fd, POLLIN, 0 };
    int rc;
    int64_t deadline = zclock_mono () + timeout;
    while ((rc = poll (&item, 1, (int) (deadline - zclock_mono ()))) == -1 && errno == EINTR
    &&     zclock_mono () < deadline)
        ;
    close (fd);
    return rc == 1;
}

//  CPU time a process has used so far, msec
int64_t
testutil_cpu_msec (pid_t pid)
{
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
    FILE *file = fopen (path, "r");
    assert_non_null (file);
    char text [1024];
    size_t size = fread (text, 1, sizeof text - 1, file);
    fclose (file);
    text [size] = 0;
    char *cursor = strrchr (text, ')');
    assert_non_null (cursor);
    unsigned long long utime = 0, stime = 0;
    //  After ") ": state (3), then fields 4..13, utime (14) and stime (15)
    int matched = sscanf (cursor + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
                          &utime, &stime);
    assert_int_equal (matched, 2);
    return (int64_t) ((utime + stime) * 1000 / (unsigned long long) sysconf (_SC_CLK_TCK));
}

//  Fill argv with prefix, first and the rest of args
void
testutil_argv_va (const char **argv, size_t size, const char *const prefix [],
                  const char *first, va_list args)
{
    size_t argc = 0;
    for (; prefix [argc] && argc < size - 2; argc++)
        argv [argc] = prefix [argc];
    argv [argc++] = first;
    const char *arg;
    while ((arg = va_arg (args, const char *)) && argc < size - 1)
        argv [argc++] = arg;
    argv [argc] = NULL;
}

//  testutil_run_cli of prefix, first and the rest of args; the exit status
int
testutil_run_cli_va (const char *const prefix [], const char *first, va_list args,
                     char *output, size_t size, char *errors, size_t errors_size)
{
    const char *argv [64];
    testutil_argv_va (argv, 64, prefix, first, args);
    int status = testutil_run_cli (argv, output, size, errors, errors_size, 30000);
    if (!(status != -1 && WIFEXITED (status)))
        fail_msg ("drover %s did not exit: stdout %s stderr %s", first, output, errors);
    return WEXITSTATUS (status);
}

//  The pids of `drover worker` processes for endpoint
size_t
testutil_worker_pids (const char *endpoint, pid_t *pids, size_t max)
{
    size_t count = 0;
    DIR *proc = opendir ("/proc");
    assert_non_null (proc);
    struct dirent *entry;
    while ((entry = readdir (proc)) && count < max) {
        pid_t pid = (pid_t) atoi (entry->d_name);
        if (pid <= 0)
            continue;
        char path [64], cmdline [2048];
        snprintf (path, sizeof path, "/proc/%d/cmdline", (int) pid);
        FILE *file = fopen (path, "r");
        if (!file)
            continue;               //  ended meanwhile
        size_t size = fread (cmdline, 1, sizeof cmdline - 1, file);
        fclose (file);
        cmdline [size] = 0;
        bool worker = false, ours = false;
        for (size_t at = 0; at < size; at += strlen (cmdline + at) + 1) {
            worker |= streq (cmdline + at, "worker");
            ours |= streq (cmdline + at, endpoint);
        }
        if (worker && ours)
            pids [count++] = pid;
    }
    closedir (proc);
    return count;
}
