/*  =========================================================================
    test_drover_cgleaf - a worker that sits in a cgroup v2 of its own (a
    systemd unit's, with Delegate=yes) steps down into a leaf so that a
    controller can be enabled for its tasks; one that shares its cgroup
    with a stranger does not move anybody and says why

    Real cgroups under this machine's cgroup2 mount, with a real domain
    controller of its root (hugetlb on the hybrid development and CI
    machines, memory or pids on pure v2 hosts): the kernel itself refuses
    (EBUSY) to enable it in a cgroup that holds processes. The test
    enables that controller in the root's subtree_control (systemd has on
    pure v2 hosts) and, if it was off, turns it off again. Each case runs
    in a child process, so that the test runner itself never moves.
    =========================================================================
*/

#include "testutil.h"
#include "drover_cgleaf.h"
#include "drover_cgfile.h"
#include <limits.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

static char s_mount [256];     //  the cgroup2 mount point
static char s_controller [32];      //  a domain controller its root offers
static bool s_enabled_here;         //  this test enabled it in the root: it turns it off

//  Find the cgroup2 mount and a domain controller its root cgroup offers;
//  false after saying what is missing
static bool
s_find_cgroup2 (void)
{
    char *mounts = drover_cgfile_read ("/proc/self/mounts");
    for (char *line = strtok (mounts, "\n"); line; line = strtok (NULL, "\n")) {
        char point [PATH_MAX], type [64];
        if (sscanf (line, "%*s %4095s %63s", point, type) == 2 && streq (type, "cgroup2")
        &&  strlen (point) < sizeof s_mount) {
            snprintf (s_mount, sizeof s_mount, "%s", point);
            break;
        }
    }
    free (mounts);
    if (!*s_mount) {
        fprintf (stderr, "test_drover_cgleaf: no cgroup2 mount in /proc/self/mounts\n");
        return false;
    }
    char path [PATH_MAX + 32];
    snprintf (path, sizeof path, "%s/cgroup.controllers", s_mount);
    char *offered = drover_cgfile_read (path);
    const char *wanted [] = { "hugetlb", "pids", "memory", "io" };
    for (size_t index = 0; index < 4 && !*s_controller; index++)
        if (drover_cgfile_lists (offered, wanted [index], " \n"))
            snprintf (s_controller, sizeof s_controller, "%s", wanted [index]);
    free (offered);
    if (!*s_controller) {
        fprintf (stderr, "test_drover_cgleaf: %s offers no domain controller (hugetlb, pids, "
                         "memory, io): this test needs one\n", path);
        return false;
    }
    //  The cases' cgroups, under the root, get it only once the root gives it
    snprintf (path, sizeof path, "%s/cgroup.subtree_control", s_mount);
    char *enabled = drover_cgfile_read (path);
    s_enabled_here = !drover_cgfile_lists (enabled, s_controller, " \n");
    free (enabled);
    char change [40];
    snprintf (change, sizeof change, "+%s", s_controller);
    if (drover_cgfile_write (s_mount, "cgroup.subtree_control", change)) {
        fprintf (stderr, "test_drover_cgleaf: cannot enable %s in %s/cgroup.subtree_control: "
                         "%s\n", s_controller, s_mount, strerror (errno));
        return false;
    }
    return true;
}

//  Make a fresh cgroup for one case under the mount; its path into dir
static void
s_make (char *dir, size_t size, const char *name)
{
    snprintf (dir, size, "%s/drover-test-cgleaf-%d-%s", s_mount, (int) getpid (), name);
    assert_int_equal (mkdir (dir, 0755), 0);
}

//  Remove the cgroup of a case and its leaf, once their processes ended
static void
s_remove (const char *dir)
{
    char leaf [PATH_MAX + 32];
    snprintf (leaf, sizeof leaf, "%s/%s", dir, DROVER_CGLEAF_NAME);
    rmdir (leaf);
    assert_int_equal (rmdir (dir), 0);
}

//  Start a child that waits until its pipe closes; *pipe_fd is the write end
static pid_t
s_sleeper (int *pipe_fd)
{
    int fds [2];
    assert_int_equal (pipe (fds), 0);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        close (fds [1]);
        char byte;
        while (read (fds [0], &byte, 1) == -1 && errno == EINTR)
            ;
        _exit (0);
    }
    close (fds [0]);
    *pipe_fd = fds [1];
    return pid;
}

//  Put pid in the cgroup dir
static int
s_join (const char *dir, pid_t pid)
{
    char text [32];
    snprintf (text, sizeof text, "%d", (int) pid);
    return drover_cgfile_write (dir, "cgroup.procs", text);
}

//  Tell whether process pid sits in the cgroup at path (under the mount)
static bool
s_sits_in (pid_t pid, const char *path)
{
    char file [64];
    snprintf (file, sizeof file, "/proc/%d/cgroup", (int) pid);
    char *cgroups = drover_cgfile_read (file);
    char *line = cgroups? strstr (cgroups, "0::"): NULL;
    bool found = false;
    if (line) {
        line += 3;
        line [strcspn (line, "\n")] = 0;
        found = streq (path + strlen (s_mount), line);
    }
    free (cgroups);
    return found;
}

//  Wait for a child and return its exit status (255 if it did not exit)
static int
s_reap (pid_t pid)
{
    int status;
    while (waitpid (pid, &status, 0) == -1)
        assert_int_equal (errno, EINTR);
    return WIFEXITED (status)? WEXITSTATUS (status): 255;
}

//  The worker and its child (the supervisor, say) alone in their cgroup:
//  the kernel refuses at first, the worker moves both into the leaf, and
//  the controller is enabled
static void
test_worker_steps_down_into_leaf (void **state)
{
    char dir [PATH_MAX];
    s_make (dir, sizeof dir, "alone");
    pid_t worker = fork ();
    assert_true (worker >= 0);
    if (worker == 0) {
        if (s_join (dir, getpid ()))
            _exit (10);
        int pipe_fd;
        pid_t child = s_sleeper (&pipe_fd);
        if (s_join (dir, child))
            _exit (11);
        //  What the kernel says without the leaf: the case is real
        char change [40];
        snprintf (change, sizeof change, "+%s", s_controller);
        if (drover_cgfile_write (dir, "cgroup.subtree_control", change) == 0 || errno != EBUSY)
            _exit (12);
        bool moved = false;
        char why [512] = "";
        if (drover_cgleaf_enable (dir, s_controller, &moved, why, sizeof why)) {
            fprintf (stderr, "test_drover_cgleaf: %s\n", why);
            _exit (13);
        }
        char leaf [PATH_MAX + 32], path [PATH_MAX + 32];
        snprintf (leaf, sizeof leaf, "%s/%s", dir, DROVER_CGLEAF_NAME);
        snprintf (path, sizeof path, "%s/cgroup.subtree_control", dir);
        char *enabled = drover_cgfile_read (path);
        int rc = !moved? 14
               : !drover_cgfile_lists (enabled, s_controller, " \n")? 15
               : !s_sits_in (getpid (), leaf)? 16
               : !s_sits_in (child, leaf)? 17: 0;
        free (enabled);
        close (pipe_fd);
        s_reap (child);
        _exit (rc);
    }
    assert_int_equal (s_reap (worker), 0);
    s_remove (dir);
}

//  A stranger in the worker's cgroup (a login session's shell, say): the
//  worker moves nobody, the controller stays off, and the reason names it
static void
test_stranger_keeps_worker_in_place (void **state)
{
    char dir [PATH_MAX];
    s_make (dir, sizeof dir, "shared");
    int stranger_fd;
    pid_t stranger = s_sleeper (&stranger_fd);
    assert_int_equal (s_join (dir, stranger), 0);
    pid_t worker = fork ();
    assert_true (worker >= 0);
    if (worker == 0) {
        if (s_join (dir, getpid ()))
            _exit (10);
        bool moved = true;
        char why [512] = "";
        int rc = drover_cgleaf_enable (dir, s_controller, &moved, why, sizeof why);
        char needle [64];
        snprintf (needle, sizeof needle, "other than this worker's (pid %d)", (int) stranger);
        _exit (rc != -1? 11: moved? 12: !strstr (why, needle)? 13
             : !s_sits_in (getpid (), dir)? 14: 0);
    }
    assert_int_equal (s_reap (worker), 0);
    assert_true (s_sits_in (stranger, dir));
    char path [PATH_MAX + 32];
    snprintf (path, sizeof path, "%s/cgroup.subtree_control", dir);
    char *enabled = drover_cgfile_read (path);
    assert_false (drover_cgfile_lists (enabled, s_controller, " \n"));
    free (enabled);
    close (stranger_fd);
    s_reap (stranger);
    s_remove (dir);
}

//  A cgroup with no process, or one where the controller is on already:
//  enabled in place, nobody moves
static void
test_empty_cgroup_enables_in_place (void **state)
{
    char dir [PATH_MAX];
    s_make (dir, sizeof dir, "empty");
    for (int round = 0; round < 2; round++) {
        bool moved = true;
        char why [512] = "";
        assert_int_equal (drover_cgleaf_enable (dir, s_controller, &moved, why, sizeof why), 0);
        assert_false (moved);
    }
    char path [PATH_MAX + 32];
    snprintf (path, sizeof path, "%s/cgroup.subtree_control", dir);
    char *enabled = drover_cgfile_read (path);
    assert_true (drover_cgfile_lists (enabled, s_controller, " \n"));
    free (enabled);
    s_remove (dir);
}

int
main (void)
{
    if (!s_find_cgroup2 ())
        return 1;
    printf ("test_drover_cgleaf: cgroup2 at %s, controller %s\n", s_mount, s_controller);
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_worker_steps_down_into_leaf),
        cmocka_unit_test (test_stranger_keeps_worker_in_place),
        cmocka_unit_test (test_empty_cgroup_enables_in_place),
    };
    int failed = cmocka_run_group_tests (tests, NULL, NULL);
    if (s_enabled_here) {
        char change [40];
        snprintf (change, sizeof change, "-%s", s_controller);
        if (drover_cgfile_write (s_mount, "cgroup.subtree_control", change))
            fprintf (stderr, "test_drover_cgleaf: cannot turn %s off again in %s: %s\n",
                     s_controller, s_mount, strerror (errno));
    }
    return failed;
}
