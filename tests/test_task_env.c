/*  =========================================================================
    test_task_env - what a task can see on its worker (its environment,
    work directory, limits), through a real broker, a real `drover
    worker` and real child tasks

    Tasks once inherited the agent's whole environment: a WORKER_SECRET set
    for the agent was read by any submitted task. Now a task sees the
    documented base, the agent's variables named by --pass-env or
    DROVER_PASS_ENV, and its own (which win); never DROVER_* (an
    allow-list naming one is refused at start), but for who it is:
    DROVER_TASK_ID, DROVER_ATTEMPT (2 on its retry) and DROVER_WORKER,
    which the agent sets over anything else, while the task's own
    DROVER_ARRAY_ID and DROVER_ARRAY_INDEX (the broker's, for an array
    element) pass unchanged. With --user it runs as that unprivileged
    user: its output is still captured, and it cannot read the agent's
    own 0600 files.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define S_WAIT      20000       //  msec a task or an agent may take at most

//  Start a broker and one agent "envw" with extra flags, the agent's
//  environment the test's plus name=value (if name); wait until it works
static testutil_cluster_t *
s_cluster_new (const char *extra_flags [], const char *name, const char *value)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    if (name)
        setenv (name, value, 1);
    testutil_cluster_add_worker (cluster, 0, "envw", 1, extra_flags);
    if (name)
        unsetenv (name);
    zsock_t *dealer = testutil_dealer (cluster);
    bool registered = testutil_wait_workers (dealer, 1, S_WAIT);
    if (!registered) {
        char *log = testutil_slurp (testutil_cluster_log (cluster, "envw"));
        fprintf (stderr, "agent did not register; its log:\n%s\n", log? log: "");
        free (log);
    }
    assert_true (registered);
    zsock_destroy (&dealer);
    return cluster;
}

//  Run argv (NULL-ended) with env entries (NULL-ended, may be NULL), stdin
//  input (may be NULL) and retries on the cluster; expect it to end in
//  state; return its TASK DONE
static drover_msg_t *
s_run_retried (testutil_cluster_t *cluster, const char *const argv [], const char *const env [],
               const char *input, uint32_t retries, int state)
{
    drover_exec_t *exec = drover_exec_new ();
    int argc = 0;
    while (argv [argc])
        argc++;
    assert_int_equal (drover_exec_set_argv (exec, argc, (const char **) argv), 0);
    for (int index = 0; env && env [index]; index++)
        assert_int_equal (drover_exec_add_env (exec, env [index]), 0);
    if (input)
        drover_exec_set_input (exec, (const byte *) input, strlen (input));
    size_t size;
    byte *body = drover_exec_encode (exec, &size);
    assert_non_null (body);
    drover_msg_t *submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    submit->procs = 1;
    submit->flags = DROVER_SUBMIT_NOTIFY;
    submit->retries = retries;
    drover_msg_set_body (submit, body, size);
    free (body);
    drover_exec_destroy (&exec);
    zsock_t *dealer = testutil_dealer (cluster);
    uint64_t task = testutil_submit (dealer, submit);
    drover_msg_t *done = testutil_expect_done (dealer, task, state, S_WAIT);
    zsock_destroy (&dealer);
    return done;
}

//  Run argv with env entries and stdin input on the cluster, no retries
//  (s_run_retried)
static drover_msg_t *
s_run_input (testutil_cluster_t *cluster, const char *const argv [], const char *const env [],
             const char *input, int state)
{
    return s_run_retried (cluster, argv, env, input, 0, state);
}

//  Run argv with env entries on the cluster, no input (s_run_input)
static drover_msg_t *
s_run_task (testutil_cluster_t *cluster, const char *const argv [], const char *const env [],
            int state)
{
    return s_run_input (cluster, argv, env, NULL, state);
}

//  Assert what a task wrote on stdout
static void
s_assert_out (drover_msg_t *done, const char *expected)
{
    char *out = zsys_sprintf ("%.*s", (int) done->out_size, done->out? (char *) done->out: "");
    assert_string_equal (out, expected);
    free (out);
}

//  The base environment a task of user pw sees, as `env` prints it
static char *
s_base (struct passwd *pw)
{
    return zsys_sprintf ("PATH=/usr/local/bin:/usr/bin:/bin\nHOME=%s\nUSER=%s\nLOGNAME=%s\n"
                         "LANG=C.UTF-8\n", pw->pw_dir, pw->pw_name, pw->pw_name);
}

//  The whole environment a task of user pw sees on agent "envw", as `env`
//  prints it: the base, then who it is (done's task, attempt 1)
static char *
s_base_who (struct passwd *pw, drover_msg_t *done)
{
    char *base = s_base (pw);
    char *whole = zsys_sprintf ("%sDROVER_TASK_ID=%" PRIu64 "\nDROVER_ATTEMPT=1\n"
                                "DROVER_WORKER=envw\n", base, done->task);
    free (base);
    return whole;
}

//  A variable set for the agent is not seen by a task; nor are the
//  agent's own DROVER_* ones. Once: "[s3cr3t][/etc/drover/worker.key]".
//  (DROVER_KEY itself now makes the agent speak CURVE, needing a CURVE
//  broker: test_curve_broker checks a keyed agent's tasks see neither
//  DROVER_KEY nor DROVER_SERVER_KEY; here another DROVER_* variable.)
static void
test_agent_variable_not_seen (void **state)
{
    setenv ("DROVER_EVENTS", "/etc/drover/worker.key", 1);
    testutil_cluster_t *cluster = s_cluster_new (NULL, "WORKER_SECRET", "s3cr3t");
    unsetenv ("DROVER_EVENTS");
    const char *argv [] = { "sh", "-c", "echo \"[$WORKER_SECRET][$DROVER_EVENTS]\"", NULL };
    drover_msg_t *done = s_run_task (cluster, argv, NULL, DROVER_TASK_SUCCEEDED);
    s_assert_out (done, "[][]\n");
    drover_msg_destroy (&done);
    testutil_cluster_destroy (&cluster);
}

//  A task's whole environment is the documented base, then who it is,
//  exactly. Once: the agent's environment (the test's), whatever it held
static void
test_base_environment_exactly (void **state)
{
    testutil_cluster_t *cluster = s_cluster_new (NULL, "WORKER_SECRET", "s3cr3t");
    const char *argv [] = { "env", NULL };
    drover_msg_t *done = s_run_task (cluster, argv, NULL, DROVER_TASK_SUCCEEDED);
    char *expected = s_base_who (getpwuid (geteuid ()), done);
    s_assert_out (done, expected);
    free (expected);
    drover_msg_destroy (&done);
    testutil_cluster_destroy (&cluster);
}

//  Variables the allow-list names are seen, by --pass-env (a list, a
//  prefix) and by DROVER_PASS_ENV, and only those. Once: no such flag
static void
test_allow_listed_variable_seen (void **state)
{
    setenv ("WORKER_SHARED", "shared", 1);
    setenv ("LC_DROVER_TEST", "lc", 1);
    setenv ("WORKER_BY_ENV", "by-env", 1);
    setenv ("DROVER_PASS_ENV", "WORKER_BY_ENV", 1);
    const char *flags [] = { "--pass-env", "WORKER_SHARED,PATH", "--pass-env", "LC_*", NULL };
    testutil_cluster_t *cluster = s_cluster_new (flags, "WORKER_SECRET", "s3cr3t");
    unsetenv ("WORKER_SHARED");
    unsetenv ("LC_DROVER_TEST");
    unsetenv ("WORKER_BY_ENV");
    unsetenv ("DROVER_PASS_ENV");
    const char *argv [] = { "sh", "-c", "echo \"[$WORKER_SHARED][$LC_DROVER_TEST]"
                            "[$WORKER_BY_ENV][$WORKER_SECRET][$DROVER_PASS_ENV]\"; echo $PATH",
                            NULL };
    drover_msg_t *done = s_run_task (cluster, argv, NULL, DROVER_TASK_SUCCEEDED);
    char *expected = zsys_sprintf ("[shared][lc][by-env][][]\n%s\n", getenv ("PATH"));
    s_assert_out (done, expected);
    free (expected);
    drover_msg_destroy (&done);
    testutil_cluster_destroy (&cluster);
}

//  The task's own variables win over the allow-listed ones and the base
static void
test_task_env_wins (void **state)
{
    const char *flags [] = { "--pass-env", "WORKER_SHARED", NULL };
    testutil_cluster_t *cluster = s_cluster_new (flags, "WORKER_SHARED", "agent's");
    const char *argv [] = { "sh", "-c", "echo \"[$WORKER_SHARED][$HOME][$LANG]\"", NULL };
    const char *env [] = { "WORKER_SHARED=task's", "HOME=/task/home", "LANG=C", NULL };
    drover_msg_t *done = s_run_task (cluster, argv, env, DROVER_TASK_SUCCEEDED);
    s_assert_out (done, "[task's][/task/home][C]\n");
    drover_msg_destroy (&done);
    testutil_cluster_destroy (&cluster);
}

//  Every task knows who it is: its id, its attempt and its worker, set
//  over the agent's and the task's own entries of those names (and 2 on
//  the retry of a task whose first attempt failed), while the task's own
//  DROVER_ARRAY_ID and DROVER_ARRAY_INDEX pass unchanged. Once: none of
//  them set
static void
test_task_knows_who_it_is (void **state)
{
    setenv ("DROVER_TASK_ID", "agent's", 1);
    testutil_cluster_t *cluster = s_cluster_new (NULL, "DROVER_WORKER", "agent's");
    unsetenv ("DROVER_TASK_ID");
    const char *argv [] = { "env", NULL };
    const char *env [] = { "DROVER_ARRAY_ID=40", "DROVER_ARRAY_INDEX=7",
                           "DROVER_TASK_ID=forged", "DROVER_ATTEMPT=9", NULL };
    drover_msg_t *done = s_run_task (cluster, argv, env, DROVER_TASK_SUCCEEDED);
    char *base = s_base (getpwuid (geteuid ()));
    char *expected = zsys_sprintf ("%sDROVER_ARRAY_ID=40\nDROVER_ARRAY_INDEX=7\n"
                                   "DROVER_TASK_ID=%" PRIu64 "\nDROVER_ATTEMPT=1\n"
                                   "DROVER_WORKER=envw\n", base, done->task);
    s_assert_out (done, expected);
    free (expected);
    drover_msg_destroy (&done);

    //  The first attempt fails, the retry succeeds, saying it is the second
    const char *retried [] = { "sh", "-c", "echo \"$DROVER_TASK_ID/$DROVER_ATTEMPT/"
                               "$DROVER_WORKER\"; test \"$DROVER_ATTEMPT\" = 2", NULL };
    done = s_run_retried (cluster, retried, NULL, NULL, 1, DROVER_TASK_SUCCEEDED);
    expected = zsys_sprintf ("%" PRIu64 "/2/envw\n", done->task);
    s_assert_out (done, expected);
    free (expected);
    drover_msg_destroy (&done);
    free (base);
    testutil_cluster_destroy (&cluster);
}

//  Copy the executable at path into a fresh directory of /tmp, both
//  readable and executable by every user: into copy, its path. It links
//  only the system's shared libraries, so the copy runs as it is.
static void
s_reachable_copy (const char *path, char *copy, size_t size)
{
    char dir [] = "/tmp/drover-bin-XXXXXX";
    assert_non_null (mkdtemp (dir));
    assert_int_equal (chmod (dir, 0755), 0);
    snprintf (copy, size, "%s/drover", dir);
    int from = open (path, O_RDONLY);
    assert_true (from >= 0);
    int to = open (copy, O_WRONLY | O_CREAT | O_EXCL, 0755);
    assert_true (to >= 0);
    char buffer [65536];
    ssize_t got;
    while ((got = read (from, buffer, sizeof buffer)) > 0)
        assert_int_equal (write (to, buffer, (size_t) got), got);
    assert_int_equal (got, 0);
    close (from);
    assert_int_equal (fchmod (to, 0755), 0);     //  whatever the umask
    assert_int_equal (close (to), 0);
}

//  Run `drover worker ARGS...` (NULL-ended) against nothing, as the user
//  uid if not -1; return its wait status and its stderr in *errors
static int
s_agent_exit (const char *const args [], uid_t uid, gid_t gid, char **errors)
{
    char err_log [] = "/tmp/drover-task-env-XXXXXX";
    int err = mkstemp (err_log);
    assert_true (err >= 0);
    //  Another user may not reach the build tree (a checkout under a 0700
    //  directory): that one runs a copy it can reach
    char copy [PATH_MAX] = "";
    if (uid != (uid_t) -1)
        s_reachable_copy (DROVER_BIN, copy, sizeof copy);
    const char *argv [24] = { *copy? copy: DROVER_BIN, "worker", "--broker", "tcp://127.0.0.1:1",
                              "--id", "x" };
    int argc = 6;
    for (int index = 0; args [index] && argc < 23; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    fflush (stdout);
    fflush (stderr);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        dup2 (err, STDERR_FILENO);
        if (uid != (uid_t) -1
        && (setgroups (0, NULL) || setgid (gid) || setuid (uid)))
            _exit (126);
        execv (argv [0], (char *const *) argv);
        _exit (127);
    }
    close (err);
    int status = testutil_wait_exit (pid, S_WAIT);
    if (status == -1)
        testutil_stop (pid, 100);
    *errors = testutil_slurp (err_log);
    fprintf (stderr, "drover worker %s ... exited %d: %s", args [0],
             status != -1 && WIFEXITED (status)? WEXITSTATUS (status): -1,
             *errors? *errors: "");
    unlink (err_log);
    if (*copy) {
        unlink (copy);
        *strrchr (copy, '/') = 0;
        rmdir (copy);
    }
    return status;
}

//  Expect the agent to stop at once with status, saying each needle
static void
s_expect_refused (const char *const args [], uid_t uid, gid_t gid, int status,
                  const char *needle1, const char *needle2)
{
    char *errors = NULL;
    int rc = s_agent_exit (args, uid, gid, &errors);
    assert_true (rc != -1 && WIFEXITED (rc));
    assert_int_equal (WEXITSTATUS (rc), status);
    assert_non_null (errors);
    assert_non_null (strstr (errors, needle1));
    assert_non_null (strstr (errors, needle2));
    free (errors);
}

//  An allow-list naming the agent's own DROVER_* variables is refused at
//  start, by flag and by DROVER_PASS_ENV. Once: "unknown option"
static void
test_drover_key_refused_at_start (void **state)
{
    const char *key [] = { "--pass-env", "DROVER_KEY", NULL };
    s_expect_refused (key, (uid_t) -1, 0, 2, "DROVER_KEY", "never passed");
    const char *listed [] = { "--pass-env", "HOME,DROVER_SERVER_KEY", NULL };
    s_expect_refused (listed, (uid_t) -1, 0, 2, "DROVER_SERVER_KEY", "never passed");
    const char *prefix [] = { "--pass-env", "DR*", NULL };
    s_expect_refused (prefix, (uid_t) -1, 0, 2, "DR*", "never passed");
    const char *bad [] = { "--pass-env", "A-B", NULL };
    s_expect_refused (bad, (uid_t) -1, 0, 2, "A-B", "not a variable name");
    setenv ("DROVER_PASS_ENV", "DROVER_KEY", 1);
    const char *none [] = { NULL };
    s_expect_refused (none, (uid_t) -1, 0, 2, "DROVER_PASS_ENV", "never passed");
    unsetenv ("DROVER_PASS_ENV");
}

//  Return nobody's passwd entry if the --user tests can run here (root,
//  with the user nobody), else NULL (they skip)
static struct passwd *
s_nobody (void)
{
    struct passwd *pw = geteuid () == 0? getpwnam ("nobody"): NULL;
    if (!pw)
        fprintf (stderr, "test_task_env: not root or no user nobody, --user tests skipped\n");
    return pw;
}

//  --user: the task runs as that user (id -u), its output is captured, it
//  cannot read the agent's 0600 key file in the agent's directory, and it
//  stays confined. Once: no such flag
static void
test_user_runs_task_unprivileged (void **state)
{
    struct passwd *pw = s_nobody ();
    if (!pw)
        skip ();
    uid_t uid = pw->pw_uid;
    gid_t gid = pw->pw_gid;
    //  The agent's directory: tasks may enter it, not read its secrets
    char dir [] = "/tmp/drover-agent-XXXXXX";
    assert_non_null (mkdtemp (dir));
    assert_int_equal (chmod (dir, 0755), 0);
    char key [PATH_MAX];
    snprintf (key, sizeof key, "%s/agent.key_secret", dir);
    int fd = open (key, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, "secret-key-bytes\n", 17), 17);
    close (fd);

    const char *flags [] = { "--user", "nobody", "--workdir", dir, NULL };
    testutil_cluster_t *cluster = s_cluster_new (flags, "WORKER_SECRET", "s3cr3t");
    const char *id [] = { "sh", "-c", "id -u; id -g; pwd; echo to-stderr >&2", NULL };
    drover_msg_t *done = s_run_task (cluster, id, NULL, DROVER_TASK_SUCCEEDED);
    char *expected = zsys_sprintf ("%d\n%d\n%s\n", (int) uid, (int) gid, dir);
    s_assert_out (done, expected);
    free (expected);
    assert_int_equal (done->err_size, strlen ("to-stderr\n"));
    assert_memory_equal (done->err, "to-stderr\n", done->err_size);
    drover_msg_destroy (&done);

    const char *env [] = { "env", NULL };
    done = s_run_task (cluster, env, NULL, DROVER_TASK_SUCCEEDED);
    char *whole = s_base_who (pw, done);
    s_assert_out (done, whole);
    free (whole);
    drover_msg_destroy (&done);

    //  Its stdin, stdout and stderr are its own to open by name too (they
    //  were root's 0600 pipes: "cannot create /dev/stderr")
    const char *named [] = { "sh", "-c", "cat /dev/stdin; echo out > /dev/stdout; "
                             "echo err > /dev/stderr", NULL };
    done = s_run_input (cluster, named, NULL, "in\n", DROVER_TASK_SUCCEEDED);
    s_assert_out (done, "in\nout\n");
    assert_int_equal (done->err_size, strlen ("err\n"));
    assert_memory_equal (done->err, "err\n", done->err_size);
    drover_msg_destroy (&done);

    const char *cat [] = { "cat", key, NULL };
    done = s_run_task (cluster, cat, NULL, DROVER_TASK_FAILED);
    assert_int_equal (done->out_size, 0);
    assert_non_null (done->err);
    char *errors = zsys_sprintf ("%.*s", (int) done->err_size, (char *) done->err);
    assert_non_null (strstr (errors, "Permission denied"));
    free (errors);
    drover_msg_destroy (&done);

    //  Where the agent confines tasks by cgroup, a task of another user too
    char *log = testutil_slurp (testutil_cluster_log (cluster, "envw"));
    bool cgroups = log && strstr (log, "each task in its own cgroup");
    free (log);
    fprintf (stderr, "test_task_env: the agent confines tasks by %s\n",
             cgroups? "cgroup": "process group only");
    if (cgroups) {
        const char *where [] = { "cat", "/proc/self/cgroup", NULL };
        done = s_run_task (cluster, where, NULL, DROVER_TASK_SUCCEEDED);
        char *text = zsys_sprintf ("%.*s", (int) done->out_size, (char *) done->out);
        assert_non_null (strstr (text, "/drover-"));
        free (text);
        drover_msg_destroy (&done);
    }
    testutil_cluster_destroy (&cluster);
    unlink (key);
    rmdir (dir);
}

//  --user is refused at start, saying why: root, an unknown user, an agent
//  that is not root, a work directory the user cannot enter
static void
test_user_refused_at_start (void **state)
{
    struct passwd *pw = s_nobody ();
    if (!pw)
        skip ();
    uid_t uid = pw->pw_uid;
    gid_t gid = pw->pw_gid;
    const char *root [] = { "--user", "root", NULL };
    s_expect_refused (root, (uid_t) -1, 0, 2, "--user", "is root");
    const char *unknown [] = { "--user", "no-such-drover-user", NULL };
    s_expect_refused (unknown, (uid_t) -1, 0, 2, "no-such-drover-user", "no such user");
    const char *not_root [] = { "--user", "nobody", "--workdir", "/", NULL };
    s_expect_refused (not_root, uid, gid, 2, "--user", "must run as root");
    char dir [] = "/tmp/drover-agent-XXXXXX";
    assert_non_null (mkdtemp (dir));            //  0700, root's
    const char *closed [] = { "--user", "nobody", "--workdir", dir, NULL };
    s_expect_refused (closed, (uid_t) -1, 0, 1, "cannot enter the work directory",
                      "Permission denied");
    rmdir (dir);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_agent_variable_not_seen),
        cmocka_unit_test (test_base_environment_exactly),
        cmocka_unit_test (test_allow_listed_variable_seen),
        cmocka_unit_test (test_task_env_wins),
        cmocka_unit_test (test_task_knows_who_it_is),
        cmocka_unit_test (test_drover_key_refused_at_start),
        cmocka_unit_test (test_user_runs_task_unprivileged),
        cmocka_unit_test (test_user_refused_at_start),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
