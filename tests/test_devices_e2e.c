/*  =========================================================================
    test_devices_e2e - counted devices end to end, over the level-4 wire:
    - a worker (the worker API, a broker played by the test) says its
      devices in HELLO, gives each offer the lowest free indices, says
      them in TASK STARTED's assigned, exports them to the task, gives
      them back when the task is gone, and ends an offer asking more than
      is free at once, MACHINE_FAILED, naming the device short;
    - two `drover worker --device gpu=2` agents and a real broker run ten
      tasks that each need gpu=1: never more than two at once on a worker,
      and every task running on a worker at one time sees a distinct
      CUDA_VISIBLE_DEVICES, checked from the tasks' own side (a lock
      directory per worker and index, taken with mkdir, which fails if it
      is held) and from their output.

    Integration: real processes. Needs the codec's device fields (HELLO,
    TASK OFFER, TASK STARTED, TASK SUBMIT) and the scheduler counting
    devices.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "testutil_fakebroker.h"

#define S_WAIT      30000       //  msec the tasks may take at most
#define S_TASKS     10          //  tasks that need gpu=1

//  Offer an attempt of sh -c script that asks count of device name
static void
s_offer_devices (testutil_fakebroker_t *broker, uint64_t task, const char *script,
                 const char *name, uint32_t count)
{
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "sh", "-c", script };
    assert_int_equal (drover_exec_set_argv (exec, 3, argv), 0);
    size_t size;
    byte *body = drover_exec_encode (exec, &size);
    assert_non_null (body);
    drover_exec_destroy (&exec);
    drover_msg_t *offer = drover_msg_new (DROVER_MSG_TASK_OFFER);
    offer->task = task;
    offer->attempt = 1;
    offer->procs = 1;
    offer->ndevices = 1;
    snprintf (offer->devices [0].name, sizeof offer->devices [0].name, "%s", name);
    offer->devices [0].count = count;
    drover_msg_set_body (offer, body, size);
    free (body);
    testutil_fakebroker_send (broker, &offer);
}

//  Expect TASK STARTED of task with the devices assigned
static void
s_expect_assigned (testutil_fakebroker_t *broker, uint64_t task, const char *assigned)
{
    drover_msg_t *started = testutil_fakebroker_expect (broker, DROVER_MSG_TASK_STARTED, 5000);
    assert_int_equal (started->task, task);
    assert_non_null (started->assigned);
    assert_string_equal (started->assigned, assigned);
    drover_msg_destroy (&started);
}

//  Expect, as the next message, the RESULT that ends task MACHINE_FAILED
//  (no TASK STARTED before it: it never ran), its reason saying why
static void
s_expect_short (testutil_fakebroker_t *broker, uint64_t task, const char *why)
{
    drover_msg_t *result = testutil_fakebroker_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    assert_int_equal (result->task, task);
    assert_int_equal (result->outcome, DROVER_OUTCOME_MACHINE_FAILED);
    assert_non_null (result->reason);
    if (!strstr (result->reason, why))
        fail_msg ("task %" PRIu64 ": '%s' does not say '%s'", task, result->reason, why);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);
}

//  The worker's side of an offer with devices, against a played broker
static void
test_worker_assigns_offers (void **state)
{
    (void) state;
    testutil_fakebroker_t *broker = testutil_fakebroker_new ();
    char *error = NULL;
    assert_int_equal (drover_worker_add_device (broker->worker, "gpu=2", &error), 0);
    assert_int_equal (drover_worker_add_device (broker->worker, "fpga=4,6", &error), 0);
    testutil_fakebroker_start (broker);
    drover_msg_t *hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_int_equal (hello->ndevices, 2);          //  by name
    assert_string_equal (hello->devices [0].name, "fpga");
    assert_int_equal (hello->devices [0].count, 2);
    assert_string_equal (hello->devices [1].name, "gpu");
    assert_int_equal (hello->devices [1].count, 2);
    drover_msg_destroy (&hello);
    testutil_fakebroker_welcome (broker, 100);

    //  One holds gpu 0 while it runs; the next gets gpu 1 and sees it
    s_offer_devices (broker, 1, "sleep 30", "gpu", 1);
    s_expect_assigned (broker, 1, "gpu=0");
    s_offer_devices (broker, 2, "echo \"$CUDA_VISIBLE_DEVICES/$DROVER_DEVICES_GPU/"
                                "$DROVER_DEVICES_FPGA/$CUDA_DEVICE_ORDER\"", "gpu", 1);
    s_expect_assigned (broker, 2, "gpu=1");
    drover_msg_t *result = testutil_fakebroker_expect_result (broker, 2);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    char *out = zsys_sprintf ("%.*s", (int) result->out_size, (char *) result->out);
    assert_string_equal (out, "1/1//PCI_BUS_ID\n");
    zstr_free (&out);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);

    //  Given back once it ended: asking two finds gpu 1 free, not two
    s_offer_devices (broker, 3, "exit 0", "gpu", 2);
    s_expect_short (broker, 3, "devices short: gpu: 2 asked, 1 of 2 free");
    s_offer_devices (broker, 4, "exit 0", "tpu", 1);
    s_expect_short (broker, 4, "devices short: this worker has no device tpu");

    //  Another name, its own indices
    s_offer_devices (broker, 5, "echo \"$DROVER_DEVICES_FPGA\"", "fpga", 2);
    s_expect_assigned (broker, 5, "fpga=4,6");
    result = testutil_fakebroker_expect_result (broker, 5);
    out = zsys_sprintf ("%.*s", (int) result->out_size, (char *) result->out);
    assert_string_equal (out, "4,6\n");
    zstr_free (&out);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);
    testutil_fakebroker_destroy (&broker);
}

//  A worker's row says it has gpu=2
static bool
s_has_two_gpus (const drover_worker_row_t *row, void *arg)
{
    (void) arg;
    return row->devices && streq (row->devices, "gpu=2");
}

//  What each task does: takes the lock of its worker's index (fails if
//  another task holds it), counts the tasks running on its worker (fails
//  past 2), says where it ran, holds the device a while, lets go
#define S_SCRIPT \
    "dir=\"$1\"; gpu=\"$CUDA_VISIBLE_DEVICES\"\n" \
    "case \"$gpu\" in 0|1) ;; *) echo \"bad index '$gpu'\" >&2; exit 9;; esac\n" \
    "[ \"$DROVER_DEVICES_GPU\" = \"$gpu\" ] || exit 10\n" \
    "mkdir \"$dir/$DROVER_WORKER-gpu$gpu\" || exit 7\n" \
    "mkdir \"$dir/$DROVER_WORKER.run.$DROVER_TASK_ID\"\n" \
    "running=$(ls -d \"$dir/$DROVER_WORKER\".run.* | wc -l)\n" \
    "[ \"$running\" -le 2 ] || { echo \"$running at once\" >&2; exit 8; }\n" \
    "echo \"$DROVER_WORKER $gpu\"\n" \
    "sleep 0.5\n" \
    "rmdir \"$dir/$DROVER_WORKER.run.$DROVER_TASK_ID\" \"$dir/$DROVER_WORKER-gpu$gpu\"\n"

//  2 workers with gpu=2 each, 10 tasks with gpu=1
static void
test_two_workers_share_gpus (void **state)
{
    (void) state;
    char dir [] = "/tmp/drover-gpus-XXXXXX";
    assert_non_null (mkdtemp (dir));
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    const char *flags [] = { "--device", "gpu=2", NULL };
    setenv ("DROVER_NVIDIA_SMI", "", 1);
    testutil_cluster_add_worker (cluster, 0, "gpu-a", 4, flags);
    testutil_cluster_add_worker (cluster, 1, "gpu-b", 4, flags);
    unsetenv ("DROVER_NVIDIA_SMI");
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 2, S_WAIT));
    assert_true (testutil_wait_worker_row (dealer, "gpu-a", s_has_two_gpus, NULL, S_WAIT));
    assert_true (testutil_wait_worker_row (dealer, "gpu-b", s_has_two_gpus, NULL, S_WAIT));

    uint64_t tasks [S_TASKS];
    for (int index = 0; index < S_TASKS; index++) {
        drover_exec_t *exec = drover_exec_new ();
        const char *argv [] = { "sh", "-c", S_SCRIPT, "gpu-task", dir };
        assert_int_equal (drover_exec_set_argv (exec, 5, argv), 0);
        size_t size;
        byte *body = drover_exec_encode (exec, &size);
        drover_exec_destroy (&exec);
        drover_msg_t *submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
        submit->procs = 1;
        submit->flags = DROVER_SUBMIT_NOTIFY;
        submit->ndevices = 1;
        strcpy (submit->devices [0].name, "gpu");
        submit->devices [0].count = 1;
        drover_msg_set_body (submit, body, size);
        free (body);
        tasks [index] = testutil_submit (dealer, submit);
    }
    drover_msg_t *done [S_TASKS] = { NULL };
    assert_true (testutil_collect (dealer, tasks, done, S_TASKS, S_WAIT));
    size_t on [2] [2] = { { 0 } };      //  tasks per worker and index
    for (int index = 0; index < S_TASKS; index++) {
        if (done [index]->state != DROVER_TASK_SUCCEEDED)
            fail_msg ("task %" PRIu64 " ended %s: %s (stderr %.*s)", tasks [index],
                      drover_task_state_name (done [index]->state),
                      done [index]->reason? done [index]->reason: "",
                      (int) done [index]->err_size, done [index]->err? (char *) done [index]->err: "");
        char worker [16];
        int gpu = -1;
        char *out = zsys_sprintf ("%.*s", (int) done [index]->out_size, (char *) done [index]->out);
        assert_int_equal (sscanf (out, "%15s %d", worker, &gpu), 2);
        zstr_free (&out);
        assert_true (gpu == 0 || gpu == 1);
        assert_true (streq (worker, "gpu-a") || streq (worker, "gpu-b"));
        assert_string_equal (worker, done [index]->worker);
        on [streq (worker, "gpu-b")] [gpu]++;
        drover_msg_destroy (&done [index]);
    }
    assert_int_equal (on [0] [0] + on [0] [1] + on [1] [0] + on [1] [1], S_TASKS);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
    testutil_remove_tree (dir);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_worker_assigns_offers),
        cmocka_unit_test (test_two_workers_share_gpus),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
