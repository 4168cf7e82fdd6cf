/*  =========================================================================
    testutil - helpers shared by the tests
    =========================================================================
*/

#include "testutil.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

//  Ask the kernel for an ephemeral port on loopback, then release it
int
testutil_free_port (void)
{
    int fd = socket (AF_INET, SOCK_STREAM, 0);
    assert (fd >= 0);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = 0 };
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    int rc = bind (fd, (struct sockaddr *) &addr, sizeof addr);
    assert (rc == 0);
    socklen_t len = sizeof addr;
    rc = getsockname (fd, (struct sockaddr *) &addr, &len);
    assert (rc == 0);
    close (fd);
    return ntohs (addr.sin_port);
}

//  Fork and exec argv with output going to log_path
pid_t
testutil_spawn (const char *const argv [], const char *log_path)
{
    pid_t pid = fork ();
    if (pid != 0)
        return pid;             //  parent (or -1)
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

//  Wait for one message with a deadline
zmsg_t *
testutil_recv (zsock_t *sock, int timeout)
{
    zpoller_t *poller = zpoller_new (sock, NULL);
    zmsg_t *msg = NULL;
    if (zpoller_wait (poller, timeout) == sock)
        msg = zmsg_recv (sock);
    zpoller_destroy (&poller);
    return msg;
}
