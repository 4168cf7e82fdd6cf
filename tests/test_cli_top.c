/*  =========================================================================
    test_cli_top - `drover top` through the real binary in a real terminal
    (tmux): it shows the workers and a queued task, follows a resize, says
    an unreachable broker on screen, and quits on q. Skipped, saying so,
    where tmux is not installed.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <sys/wait.h>

#define S_TMUX      "/usr/bin/tmux"

//  Our own tmux server, apart from any other
static char s_socket [64];

//  Run tmux with the NULL-terminated arguments; its stdout into output
//  (if given); returns its exit status, or -1
static int
s_tmux (char *output, size_t size, const char *first, ...)
{
    const char *prefix [] = { S_TMUX, "-L", s_socket, NULL };
    const char *argv [32];
    va_list args;
    va_start (args, first);
    testutil_argv_va (argv, 32, prefix, first, args);
    va_end (args);
    char scratch [16], errors [1024];
    int status = testutil_run_cli (argv, output? output: scratch, output? size: sizeof scratch,
                                   errors, sizeof errors, 10000);
    return status != -1 && WIFEXITED (status)? WEXITSTATUS (status): -1;
}

//  Wait up to timeout msec until the screen shows every needle (NULL-
//  terminated); the last screen stays in screen. False on timeout.
static bool
s_await_screen (char *screen, size_t size, int timeout, const char *const needles [])
{
    int64_t deadline = zclock_mono () + timeout;
    while (true) {
        s_tmux (screen, size, "capture-pane", "-p", "-t", "top", NULL);
        bool all = true;
        for (int index = 0; needles [index]; index++)
            all &= strstr (screen, needles [index]) != NULL;
        if (all)
            return true;
        if (zclock_mono () >= deadline)
            return false;
        zclock_sleep (100);             //  polling the screen, not settling
    }
}

//  Wait up to timeout msec until the session has ended
static bool
s_await_session_gone (int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (s_tmux (NULL, 0, "has-session", "-t", "top", NULL) == 0) {
        if (zclock_mono () >= deadline)
            return false;
        zclock_sleep (50);              //  polling its end
    }
    return true;
}

//  Start `drover top` at endpoint in a 120x40 tmux session
static void
s_start_top (const char *endpoint)
{
    s_tmux (NULL, 0, "kill-server", NULL);     //  one a failed test left
    char command [512];
    snprintf (command, sizeof command, "%s top -d 0.5 --broker %s", DROVER_BIN, endpoint);
    assert_int_equal (s_tmux (NULL, 0, "new-session", "-d", "-s", "top", "-x", "120", "-y", "40",
                              command, NULL), 0);
}

//  The workers, a queued task that cannot run and the counts appear; a
//  narrower terminal gets lines that fit it; q ends it
static void
test_top_shows_workers_and_queue (void **state)
{
    if (access (S_TMUX, X_OK) != 0) {
        fprintf (stderr, "test_cli_top: %s not found: skipping (apt-get install tmux)\n", S_TMUX);
        skip ();
    }
    snprintf (s_socket, sizeof s_socket, "drover-top-%d-a", (int) getpid ());
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    testutil_cluster_add_worker (cluster, 0, "top-w1", 2, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 10000));
    //  Wider than any worker: it stays queued
    uint64_t task = testutil_submit (dealer, testutil_submit_msg ("true", -7, 64, 0));
    char row [64];
    snprintf (row, sizeof row, "%llu", (unsigned long long) task);

    s_start_top (cluster->endpoint);
    static char screen [65536];
    const char *expected [] = { "drover top", cluster->endpoint, "top-w1", "workers 1: 1 ok",
                                "1 queued", "WORKER", "HEALTH", "PROCS", NULL };
    if (!s_await_screen (screen, sizeof screen, 10000, expected))
        fail_msg ("top did not show the workers and the queue:\n%s", screen);
    //  The queued task's row: id, priority, procs
    char needle [96];
    snprintf (needle, sizeof needle, "%-8s  %6d  %5d  sh -c true", row, -7, 64);
    const char *queued [] = { needle, NULL };
    if (!s_await_screen (screen, sizeof screen, 5000, queued))
        fail_msg ("no row '%s' for the queued task:\n%s", needle, screen);

    //  A resize: every line fits the new width, the header is still there
    assert_int_equal (s_tmux (NULL, 0, "resize-window", "-t", "top", "-x", "50", "-y", "12",
                              NULL), 0);
    const char *header [] = { "drover top", "WORKER", NULL };
    assert_true (s_await_screen (screen, sizeof screen, 5000, header));
    for (char *line = screen; *line; ) {
        char *end = strchr (line, '\n');
        size_t length = end? (size_t) (end - line): strlen (line);
        if (length > 50)
            fail_msg ("a line of %zu columns on a 50-column screen:\n%s", length, screen);
        line = end? end + 1: line + length;
    }
    assert_int_equal (s_tmux (NULL, 0, "send-keys", "-t", "top", "q", NULL), 0);
    assert_true (s_await_session_gone (5000));
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
    s_tmux (NULL, 0, "kill-server", NULL);
}

//  Nothing at the endpoint: said on screen, and top keeps trying until q
static void
test_top_says_unreachable (void **state)
{
    if (access (S_TMUX, X_OK) != 0) {
        fprintf (stderr, "test_cli_top: %s not found: skipping (apt-get install tmux)\n", S_TMUX);
        skip ();
    }
    //  A server of its own: the last one may still be exiting
    snprintf (s_socket, sizeof s_socket, "drover-top-%d-b", (int) getpid ());
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", testutil_free_port ());
    s_start_top (endpoint);
    static char screen [65536];
    const char *expected [] = { "broker unreachable", "still trying", endpoint, NULL };
    if (!s_await_screen (screen, sizeof screen, 10000, expected))
        fail_msg ("top did not say the broker is unreachable:\n%s", screen);
    assert_int_equal (s_tmux (NULL, 0, "has-session", "-t", "top", NULL), 0);     //  still there
    assert_int_equal (s_tmux (NULL, 0, "send-keys", "-t", "top", "q", NULL), 0);
    assert_true (s_await_session_gone (5000));
    s_tmux (NULL, 0, "kill-server", NULL);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_top_shows_workers_and_queue),
        cmocka_unit_test (test_top_says_unreachable),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
