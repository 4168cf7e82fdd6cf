/*  =========================================================================
    test_drover_taskenv - what a task can see of its worker, the plain class

    The environment a task gets from the agent's (a made-up array here),
    the allow-list and its refusals, and the user: refused when it is
    root, unknown, or the caller is not root; its base environment; a
    directory it cannot enter. The suite runs as root, with the user
    `nobody`; the user tests skip otherwise.
    =========================================================================
*/

#include "testutil.h"
#include "drover_taskenv.h"
#include <pwd.h>
#include <unistd.h>
#include <sys/stat.h>

//  Join a built environment into one string, entries newline-separated
static char *
s_joined (char **envp)
{
    size_t size = 1;
    for (size_t index = 0; envp [index]; index++)
        size += strlen (envp [index]) + 1;
    char *text = (char *) zmalloc (size);
    for (size_t index = 0; envp [index]; index++) {
        strcat (text, envp [index]);
        strcat (text, "\n");
    }
    return text;
}

//  Build with taskenv from agent_env, the task's entries (NULL-ended) and
//  who it is (may be NULL), and check the result against expected
//  (entries newline-separated)
static void
s_assert_built_who (drover_taskenv_t *taskenv, char **agent_env, const char *const task [],
                    const drover_taskenv_who_t *who, const char *expected)
{
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "true" };
    assert_int_equal (drover_exec_set_argv (exec, 1, argv), 0);
    for (size_t index = 0; task && task [index]; index++)
        assert_int_equal (drover_exec_add_env (exec, task [index]), 0);
    char **envp = drover_taskenv_build (taskenv, agent_env, exec, who);
    assert_non_null (envp);
    char *text = s_joined (envp);
    assert_string_equal (text, expected);
    free (text);
    free (envp);
    drover_exec_destroy (&exec);
}

//  Build as s_assert_built_who, for no attempt in particular
static void
s_assert_built (drover_taskenv_t *taskenv, char **agent_env, const char *const task [],
                const char *expected)
{
    s_assert_built_who (taskenv, agent_env, task, NULL, expected);
}

//  The base for the agent's own user, whatever the agent's environment has
static char *
s_base (void)
{
    struct passwd *pw = getpwuid (geteuid ());
    assert_non_null (pw);
    return zsys_sprintf ("PATH=/usr/local/bin:/usr/bin:/bin\nHOME=%s\nUSER=%s\nLOGNAME=%s\n"
                         "LANG=C.UTF-8\n", pw->pw_dir, pw->pw_name, pw->pw_name);
}

static char *s_agent_env [] = {
    "WORKER_SECRET=agent's", "DROVER_KEY=/etc/drover/worker.key", "LC_ALL=de_DE.UTF-8",
    "LC_TIME=C", "LANG=de_DE.UTF-8", "PATH=/opt/agent/bin:/usr/bin", "SHARED=agent",
    "DROVER_CONFINE=pgroup", NULL
};

//  With no allow-list, the base only: none of the agent's variables
static void
test_base_only (void **state)
{
    drover_taskenv_t *taskenv = drover_taskenv_new ();
    char *base = s_base ();
    s_assert_built (taskenv, s_agent_env, NULL, base);
    s_assert_built (taskenv, NULL, NULL, base);
    free (base);
    assert_null (drover_taskenv_user (taskenv));
    drover_taskenv_destroy (&taskenv);
    assert_null (taskenv);
    drover_taskenv_destroy (&taskenv);      //  harmless twice
}

//  Allowed names pass (replacing the base's of the same name), prefixes
//  pass what they start, and the task's own entries win over both
static void
test_allowed_and_own (void **state)
{
    drover_taskenv_t *taskenv = drover_taskenv_new ();
    char *error = NULL;
    assert_int_equal (drover_taskenv_pass (taskenv, "LC_*,LANG", &error), 0);
    assert_int_equal (drover_taskenv_pass (taskenv, "SHARED", &error), 0);
    assert_int_equal (drover_taskenv_pass (taskenv, "NOT_SET_ANYWHERE", &error), 0);
    assert_null (error);
    struct passwd *pw = getpwuid (geteuid ());
    assert_non_null (pw);
    char expected [1024];
    snprintf (expected, sizeof expected,
              "PATH=/usr/local/bin:/usr/bin:/bin\nHOME=%s\nUSER=%s\nLOGNAME=%s\n"
              "LANG=de_DE.UTF-8\nLC_ALL=de_DE.UTF-8\nLC_TIME=C\nSHARED=agent\n",
              pw->pw_dir, pw->pw_name, pw->pw_name);
    s_assert_built (taskenv, s_agent_env, NULL, expected);

    const char *own [] = { "SHARED=task's", "PATH=/task/bin", "NEW=1", "NEW=2", "EMPTY=", NULL };
    snprintf (expected, sizeof expected,
              "PATH=/task/bin\nHOME=%s\nUSER=%s\nLOGNAME=%s\n"
              "LANG=de_DE.UTF-8\nLC_ALL=de_DE.UTF-8\nLC_TIME=C\nSHARED=task's\nNEW=2\nEMPTY=\n",
              pw->pw_dir, pw->pw_name, pw->pw_name);
    s_assert_built (taskenv, s_agent_env, own, expected);
    drover_taskenv_destroy (&taskenv);
}

//  Allowing PATH through gives the agent's PATH instead of the base's
static void
test_path_allowed_through (void **state)
{
    drover_taskenv_t *taskenv = drover_taskenv_new ();
    char *error = NULL;
    assert_int_equal (drover_taskenv_pass (taskenv, "PATH", &error), 0);
    struct passwd *pw = getpwuid (geteuid ());
    char expected [1024];
    snprintf (expected, sizeof expected,
              "PATH=/opt/agent/bin:/usr/bin\nHOME=%s\nUSER=%s\nLOGNAME=%s\nLANG=C.UTF-8\n",
              pw->pw_dir, pw->pw_name, pw->pw_name);
    s_assert_built (taskenv, s_agent_env, NULL, expected);
    drover_taskenv_destroy (&taskenv);
}

//  An entry that is not a name, or that could name a DROVER_* variable,
//  is refused with a message naming it, and nothing of its list is kept
static void
test_pass_refused (void **state)
{
    const char *refused [] = { "DROVER_KEY", "DROVER_SERVER_KEY", "DROVER_*", "DROV*", "D*", "*",
                               "SHARED,DROVER_KEY", "", "A,,B", "1ABC", "A-B", "A*B", "LC_**",
                               "A=B", NULL };
    for (size_t index = 0; refused [index]; index++) {
        drover_taskenv_t *taskenv = drover_taskenv_new ();
        char *error = NULL;
        assert_int_equal (drover_taskenv_pass (taskenv, refused [index], &error), -1);
        assert_non_null (error);
        if (strstr (refused [index], "D"))
            assert_non_null (strstr (error, "never passed"));
        //  SHARED of "SHARED,DROVER_KEY" was not kept either
        char *base = s_base ();
        s_assert_built (taskenv, s_agent_env, NULL, base);
        free (base);
        zstr_free (&error);
        drover_taskenv_destroy (&taskenv);
    }
    //  Names that only look alike are someone else's
    drover_taskenv_t *taskenv = drover_taskenv_new ();
    char *error = NULL;
    assert_int_equal (drover_taskenv_pass (taskenv, "DROVER,DROVERX*,_X,x1", &error), 0);
    drover_taskenv_destroy (&taskenv);
}

//  A DROVER_* variable never passes, even past the list's check
static void
test_own_never_passed (void **state)
{
    drover_taskenv_t *taskenv = drover_taskenv_new ();
    char *error = NULL;
    assert_int_equal (drover_taskenv_pass (taskenv, "DROVER", &error), 0);
    char *agent_env [] = { "DROVER=plain", "DROVER_KEY=/secret", NULL };
    char *base = s_base ();
    char *expected = zsys_sprintf ("%sDROVER=plain\n", base);
    s_assert_built (taskenv, agent_env, NULL, expected);
    free (expected);
    free (base);
    drover_taskenv_destroy (&taskenv);
}

//  Who the task is comes last and wins over the agent's and the task's own
//  entries of those names; the task's own other DROVER_* entries (an array
//  element's, from the broker) pass unchanged; the agent's never do.
//  Once: no DROVER_TASK_ID at all
static void
test_who_it_is (void **state)
{
    drover_taskenv_t *taskenv = drover_taskenv_new ();
    char *error = NULL;
    assert_int_equal (drover_taskenv_pass (taskenv, "SHARED", &error), 0);
    char *agent_env [] = { "SHARED=agent", "DROVER_TASK_ID=666", "DROVER_WORKER=agent's",
                           "DROVER_ARRAY_INDEX=666", NULL };
    const char *own [] = { "DROVER_ARRAY_ID=40", "DROVER_ARRAY_INDEX=7", "DROVER_TASK_ID=1",
                           "DROVER_ATTEMPT=9", NULL };
    drover_taskenv_who_t who = { UINT64_MAX, 2, "rack-2", NULL };
    char *base = s_base ();
    char *expected = zsys_sprintf ("%sSHARED=agent\nDROVER_ARRAY_ID=40\nDROVER_ARRAY_INDEX=7\n"
                                   "DROVER_TASK_ID=18446744073709551615\nDROVER_ATTEMPT=2\n"
                                   "DROVER_WORKER=rack-2\n", base);
    s_assert_built_who (taskenv, agent_env, own, &who, expected);
    free (expected);

    //  No worker id: no DROVER_WORKER; the largest attempt fits
    who.task = 41;
    who.attempt = UINT32_MAX;
    who.worker = NULL;
    expected = zsys_sprintf ("%sDROVER_TASK_ID=41\nDROVER_ATTEMPT=4294967295\n", base);
    s_assert_built_who (taskenv, NULL, NULL, &who, expected);
    free (expected);
    free (base);
    drover_taskenv_destroy (&taskenv);
}

//  The devices the worker gave a task come after its own entries and win
//  over its own of those names (a task cannot pick another's GPU); who it
//  is still comes last
static void
test_devices_over_own (void **state)
{
    (void) state;
    drover_taskenv_t *taskenv = drover_taskenv_new ();
    const char *own [] = { "CUDA_VISIBLE_DEVICES=7", "KEEP=1", "DROVER_DEVICES_GPU=7", NULL };
    char *devices [] = { "DROVER_DEVICES_GPU=0,2", "CUDA_VISIBLE_DEVICES=0,2",
                         "CUDA_DEVICE_ORDER=PCI_BUS_ID", "DROVER_DEVICES_FPGA=", NULL };
    drover_taskenv_who_t who = { 5, 1, "w1", devices };
    char *base = s_base ();
    char *expected = zsys_sprintf ("%sCUDA_VISIBLE_DEVICES=0,2\nKEEP=1\n"
                                   "DROVER_DEVICES_GPU=0,2\nCUDA_DEVICE_ORDER=PCI_BUS_ID\n"
                                   "DROVER_DEVICES_FPGA=\nDROVER_TASK_ID=5\nDROVER_ATTEMPT=1\n"
                                   "DROVER_WORKER=w1\n", base);
    s_assert_built_who (taskenv, NULL, own, &who, expected);
    free (expected);

    //  None given: the task's own entries stand
    who.devices = NULL;
    expected = zsys_sprintf ("%sCUDA_VISIBLE_DEVICES=7\nKEEP=1\nDROVER_DEVICES_GPU=7\n"
                             "DROVER_TASK_ID=5\nDROVER_ATTEMPT=1\nDROVER_WORKER=w1\n", base);
    s_assert_built_who (taskenv, NULL, own, &who, expected);
    free (expected);
    free (base);
    drover_taskenv_destroy (&taskenv);
}

//  Return true if the tests of --user can run here: root, with nobody
static bool
s_user_tests_run (void)
{
    if (geteuid () != 0 || !getpwnam ("nobody")) {
        fprintf (stderr, "test_drover_taskenv: not root or no user nobody, user tests skipped\n");
        return false;
    }
    return true;
}

//  Root, an unknown user, and an empty name are refused, saying why
static void
test_user_refused (void **state)
{
    if (!s_user_tests_run ())
        skip ();
    drover_taskenv_t *taskenv = drover_taskenv_new ();
    char *error = NULL;
    assert_int_equal (drover_taskenv_set_user (taskenv, "root", &error), -1);
    assert_non_null (strstr (error, "is root"));
    zstr_free (&error);
    assert_int_equal (drover_taskenv_set_user (taskenv, "no-such-drover-user", &error), -1);
    assert_non_null (strstr (error, "no such user"));
    zstr_free (&error);
    assert_int_equal (drover_taskenv_set_user (taskenv, "", &error), -1);
    zstr_free (&error);
    assert_null (drover_taskenv_user (taskenv));
    drover_taskenv_id_t id;
    drover_taskenv_identity (taskenv, &id);
    assert_false (id.change);
    drover_taskenv_destroy (&taskenv);
}

//  A user's ids, its base environment, and a directory it cannot enter
static void
test_user_nobody (void **state)
{
    if (!s_user_tests_run ())
        skip ();
    struct passwd *pw = getpwnam ("nobody");
    uid_t uid = pw->pw_uid;
    gid_t gid = pw->pw_gid;
    char *expected = zsys_sprintf ("PATH=/usr/local/bin:/usr/bin:/bin\nHOME=%s\nUSER=nobody\n"
                                   "LOGNAME=nobody\nLANG=C.UTF-8\n", pw->pw_dir);
    drover_taskenv_t *taskenv = drover_taskenv_new ();
    char *error = NULL;
    assert_int_equal (drover_taskenv_set_user (taskenv, "nobody", &error), 0);
    assert_string_equal (drover_taskenv_user (taskenv), "nobody");
    drover_taskenv_id_t id;
    drover_taskenv_identity (taskenv, &id);
    assert_true (id.change);
    assert_int_equal (id.uid, uid);
    assert_int_equal (id.gid, gid);
    s_assert_built (taskenv, s_agent_env, NULL, expected);
    free (expected);

    char dir [] = "/tmp/drover-taskenv-XXXXXX";
    assert_non_null (mkdtemp (dir));            //  0700, root's
    assert_int_equal (drover_taskenv_check_dir (taskenv, dir, &error), -1);
    assert_non_null (strstr (error, "nobody"));
    assert_non_null (strstr (error, dir));
    assert_non_null (strstr (error, "Permission denied"));
    zstr_free (&error);
    assert_int_equal (chmod (dir, 0711), 0);
    assert_int_equal (drover_taskenv_check_dir (taskenv, dir, &error), 0);
    assert_null (error);
    rmdir (dir);
    drover_taskenv_destroy (&taskenv);

    //  Tasks of the agent's own user may go wherever it may
    taskenv = drover_taskenv_new ();
    assert_int_equal (drover_taskenv_check_dir (taskenv, "/nonexistent-dir", &error), 0);
    drover_taskenv_destroy (&taskenv);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_base_only),
        cmocka_unit_test (test_allowed_and_own),
        cmocka_unit_test (test_path_allowed_through),
        cmocka_unit_test (test_pass_refused),
        cmocka_unit_test (test_own_never_passed),
        cmocka_unit_test (test_who_it_is),
        cmocka_unit_test (test_devices_over_own),
        cmocka_unit_test (test_user_refused),
        cmocka_unit_test (test_user_nobody),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
