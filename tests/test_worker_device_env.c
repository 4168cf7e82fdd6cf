/*  =========================================================================
    test_worker_device_env - what a task is told of its counted devices,
    on real child processes: the runner exports the indices the worker
    gave it (over the task's own entries of those names), and a `drover
    worker --device gpu=2` registers with a real broker and tells a task
    that asked for no device that it has none (CUDA_VISIBLE_DEVICES set
    and empty, which hides every GPU)

    Integration: child processes, a broker and an agent.
    =========================================================================
*/

#include "drover_devices.h"
#include "testutil_runner.h"
#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"

#define S_WAIT      20000       //  msec a task or an agent may take at most

//  What the tasks print: their device variables, "unset" for one not set
#define S_PRINT_DEVICES \
    "echo \"${CUDA_VISIBLE_DEVICES-unset}|${CUDA_DEVICE_ORDER-unset}|" \
    "${DROVER_DEVICES_GPU-unset}|${DROVER_DEVICES_FPGA-unset}\""

//  Start an attempt of sh -c script with the env entries of holder's
//  devices and the task's own entry own (may be NULL); return its result
static drover_msg_t *
s_run_holding (drover_runner_t *runner, drover_devices_t *devices, const char *holder,
               uint64_t task, const char *own)
{
    drover_exec_t *exec = testutil_runner_shell (S_PRINT_DEVICES);
    if (own)
        assert_int_equal (drover_exec_add_env (exec, own), 0);
    zlistx_t *env = drover_devices_env (devices, holder);
    char *entries [16] = { NULL };
    size_t count = 0;
    for (char *entry = (char *) zlistx_first (env); entry && count < 15;
         entry = (char *) zlistx_next (env))
        entries [count++] = entry;
    assert_int_equal (drover_runner_start_assigned (runner, task, 1, exec, 0, 0, entries,
                                                    zclock_mono ()), 0);
    zlistx_destroy (&env);              //  copied into the child at its start
    drover_exec_destroy (&exec);
    return testutil_runner_wait_outcome (runner, DROVER_OUTCOME_EXITED);
}

//  A task sees the indices it was given, whatever its own entries say;
//  the next task gets the next free ones, and one that took none, none
static void
test_runner_exports_assigned (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_devices_t *devices = drover_devices_new ();
    char *error = NULL;
    assert_int_equal (drover_devices_parse (devices, "gpu=0,2,5", &error), 0);
    assert_int_equal (drover_devices_parse (devices, "fpga=2", &error), 0);
    zlistx_t *env = NULL;
    drover_devices_request_t two [] = { { "gpu", 2 } };
    assert_int_equal (drover_devices_assign (devices, "1/1", two, 1, &env, &error), 0);
    zlistx_destroy (&env);
    drover_msg_t *result = s_run_holding (runner, devices, "1/1", 1, "CUDA_VISIBLE_DEVICES=5");
    testutil_runner_assert_out (result, "0,2|PCI_BUS_ID|0,2|\n");
    drover_msg_destroy (&result);

    drover_devices_request_t both [] = { { "gpu", 1 }, { "fpga", 2 } };
    assert_int_equal (drover_devices_assign (devices, "2/1", both, 2, &env, &error), 0);
    zlistx_destroy (&env);
    result = s_run_holding (runner, devices, "2/1", 2, NULL);
    testutil_runner_assert_out (result, "5|PCI_BUS_ID|5|0,1\n");
    drover_msg_destroy (&result);

    result = s_run_holding (runner, devices, "3/1", 3, "DROVER_DEVICES_GPU=0");
    testutil_runner_assert_out (result, "|PCI_BUS_ID||\n");
    drover_msg_destroy (&result);

    //  No devices at all: nothing is said, the task's own entries stand
    drover_devices_t *none = drover_devices_new ();
    result = s_run_holding (runner, none, "4/1", 4, "CUDA_VISIBLE_DEVICES=3");
    testutil_runner_assert_out (result, "3|unset|unset|unset\n");
    drover_msg_destroy (&result);
    drover_devices_destroy (&none);
    drover_devices_destroy (&devices);
}

//  Run sh -c script with the task's own env entry (may be NULL) on the
//  cluster; expect it to succeed; return its TASK DONE
static drover_msg_t *
s_run_task (testutil_cluster_t *cluster, const char *script, const char *own)
{
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "sh", "-c", script };
    assert_int_equal (drover_exec_set_argv (exec, 3, argv), 0);
    if (own)
        assert_int_equal (drover_exec_add_env (exec, own), 0);
    size_t size;
    byte *body = drover_exec_encode (exec, &size);
    assert_non_null (body);
    drover_exec_destroy (&exec);
    drover_msg_t *submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    submit->procs = 1;
    submit->flags = DROVER_SUBMIT_NOTIFY;
    drover_msg_set_body (submit, body, size);
    free (body);
    zsock_t *dealer = testutil_dealer (cluster);
    uint64_t task = testutil_submit (dealer, submit);
    drover_msg_t *done = testutil_expect_done (dealer, task, DROVER_TASK_SUCCEEDED, S_WAIT);
    zsock_destroy (&dealer);
    return done;
}

//  Assert what a task wrote on stdout
static void
s_assert_out (drover_msg_t *done, const char *expected)
{
    char *out = zsys_sprintf ("%.*s", (int) done->out_size, done->out? (char *) done->out: "");
    assert_string_equal (out, expected);
    free (out);
}

//  An agent with --device gpu=2 (its HELLO says so from level 4 on)
//  registers with a real broker, logs its devices, and tells a task that
//  asked for none that it has none, over the task's own entries
static void
test_agent_registers_with_devices (void **state)
{
    (void) state;
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    const char *flags [] = { "--device", "gpu=2", "--device", "fpga=3,5", NULL };
    setenv ("DROVER_NVIDIA_SMI", "", 1);        //  no real one looked for
    testutil_cluster_add_worker (cluster, 0, "gpuw", 2, flags);
    unsetenv ("DROVER_NVIDIA_SMI");
    zsock_t *dealer = testutil_dealer (cluster);
    bool registered = testutil_wait_workers (dealer, 1, S_WAIT);
    zsock_destroy (&dealer);
    const char *log = testutil_cluster_log (cluster, "gpuw");
    if (!registered) {
        char *text = testutil_slurp (log);
        fail_msg ("the agent did not register; its log:\n%s", text? text: "");
    }
    assert_true (testutil_await_line (log, "worker: devices gpu=0,1 (given) fpga=3,5 (given)",
                                      S_WAIT));
    drover_msg_t *done = s_run_task (cluster, S_PRINT_DEVICES, "CUDA_VISIBLE_DEVICES=1");
    s_assert_out (done, "|PCI_BUS_ID||\n");
    drover_msg_destroy (&done);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_runner_exports_assigned,
                                         testutil_runner_setup, testutil_runner_teardown),
        cmocka_unit_test (test_agent_registers_with_devices),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
