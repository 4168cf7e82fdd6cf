/*  =========================================================================
    test_drover_workflowfile - workflow files, task options, times, arrays

    A good file (comments, continuation lines, quoting, options, steps in
    any order, waits for steps and for task ids) read into its steps; each
    error told at its line (an unknown step, a duplicate name, a cycle, a
    bad option, bad quoting) with nothing made; the word splitter alone;
    --begin's times against a fixed clock; --array's specs; the options
    that would do nothing refused.
    =========================================================================
*/

#include "testutil.h"
#include "drover_client_wire.h"
#include "drover_taskopts.h"
#include "drover_workflowfile.h"
#include <pwd.h>

//  Parse text as the file "flow.wf"; NULL with error set
static drover_workflow_t *
s_parse (const char *text, char *error, size_t size)
{
    error [0] = 0;
    return drover_workflowfile_parse ("flow.wf", text, strlen (text), "flow", error, size);
}

//  Return the argv of a step's submit, decoded (caller destroys)
static drover_exec_t *
s_exec (drover_workflow_t *workflow, int step)
{
    const drover_msg_t *submit = drover_submit_msg (drover_workflow_submit (workflow, step));
    drover_exec_t *exec = drover_exec_new ();
    const char *error = NULL;
    assert_int_equal (drover_exec_decode (exec, submit->body, submit->body_size, &error), 0);
    return exec;
}

//  A good file: every step, its options, its command, its waits
static void
test_good_file (void **state)
{
    const char *text =
        "# a pipeline\n"
        "\n"
        "merge: --after split --priority -2 -- merge --out '/data/out dir'\n"
        "fetch:  --retries 3 --retry-delay 10 --retry-max-delay 60 \\\n"
        "        -n 2 --mem 1G --label zone=a \\\n"
        "        curl -o \"/data/in \\\"1\\\".csv\" https://example.com/in   # trailing comment\n"
        "split: --after fetch --after-any 12 --array 0-99:3%5 --env A=b sh -c 'echo $X' a\\ b\n"
        "clean: --after-fail fetch,split,merge --begin +1h -- rm -rf /data/tmp\n";
    char error [256];
    drover_workflow_t *workflow = s_parse (text, error, sizeof error);
    assert_non_null (workflow);
    assert_string_equal (error, "");
    assert_string_equal (drover_workflow_title (workflow), "flow");
    assert_int_equal (drover_workflow_size (workflow), 4);
    assert_string_equal (drover_workflow_name (workflow, 1), "merge");
    assert_int_equal (drover_workflow_find (workflow, "fetch"), 2);
    assert_int_equal (drover_workflow_find (workflow, "split"), 3);
    assert_int_equal (drover_workflow_find (workflow, "clean"), 4);

    //  merge: waits for split (step 3), priority -2, argv with a quoted space
    const drover_msg_t *merge = drover_submit_msg (drover_workflow_submit (workflow, 1));
    assert_int_equal (merge->priority, -2);
    assert_int_equal (merge->nafter, 1);
    assert_int_equal (merge->after [0].kind, DROVER_AFTER_OK | DROVER_AFTER_STEP);
    assert_int_equal (merge->after [0].task, 3);
    drover_exec_t *exec = s_exec (workflow, 1);
    assert_int_equal (exec->argc, 3);
    assert_string_equal (exec->argv [0], "merge");
    assert_string_equal (exec->argv [2], "/data/out dir");
    drover_exec_destroy (&exec);

    //  fetch: continued lines, options, escaped quotes, no waits
    const drover_msg_t *fetch = drover_submit_msg (drover_workflow_submit (workflow, 2));
    assert_int_equal (fetch->retries, 3);
    assert_int_equal (fetch->retry_delay, 10000);
    assert_int_equal (fetch->retry_max_delay, 60000);
    assert_int_equal (fetch->procs, 2);
    assert_int_equal (fetch->mem, 1ULL << 30);
    assert_int_equal (fetch->nlabels, 1);
    assert_int_equal (fetch->nafter, 0);
    exec = s_exec (workflow, 2);
    assert_int_equal (exec->argc, 4);
    assert_string_equal (exec->argv [2], "/data/in \"1\".csv");
    assert_string_equal (exec->argv [3], "https://example.com/in");
    drover_exec_destroy (&exec);

    //  split: a step and a task id, an array, env, a backslash-escaped space
    const drover_msg_t *split = drover_submit_msg (drover_workflow_submit (workflow, 3));
    assert_int_equal (split->nafter, 2);
    assert_int_equal (split->after [0].kind, DROVER_AFTER_OK | DROVER_AFTER_STEP);
    assert_int_equal (split->after [0].task, 2);
    assert_int_equal (split->after [1].kind, DROVER_AFTER_ANY);
    assert_int_equal (split->after [1].task, 12);
    assert_int_equal (split->array.first, 0);
    assert_int_equal (split->array.step, 3);
    assert_int_equal (split->array.count, 34);
    assert_int_equal (split->array.limit, 5);
    exec = s_exec (workflow, 3);
    assert_int_equal (exec->argc, 4);
    assert_string_equal (exec->argv [2], "echo $X");
    assert_string_equal (exec->argv [3], "a b");
    assert_int_equal (exec->nenv, 1);
    drover_exec_destroy (&exec);

    //  clean: three steps after-fail, a begin an hour on
    const drover_msg_t *clean = drover_submit_msg (drover_workflow_submit (workflow, 4));
    assert_int_equal (clean->nafter, 3);
    for (int at = 0; at < 3; at++)
        assert_int_equal (clean->after [at].kind, DROVER_AFTER_FAIL | DROVER_AFTER_STEP);
    assert_int_equal (clean->after [2].task, 1);
    int64_t now = zclock_time ();
    assert_true ((int64_t) clean->begin > now + 3590000 && (int64_t) clean->begin <= now + 3600000);
    drover_workflow_destroy (&workflow);
}

//  Each error names its line, and nothing is made
static void
test_errors_name_lines (void **state)
{
    struct {
        const char *text;
        const char *error;
    } cases [] = {
        { "a: true\n\nb: --after a,nope true\n",
          "flow.wf:3: step 'b': --after names 'nope', which is no step of the file (nor a "
          "task id)" },
        { "a: true\n# x\nb: true\na: false\n",
          "flow.wf:4: a step named 'a' is on line 1 already" },
        { "a: --after c true\nb: --after-any a true\nc: --after-fail b true\nd: true\n",
          "flow.wf:1: cycle: a -> c -> b -> a (each waits for the next)" },
        { "a: true\nb: --retries x true\n",
          "flow.wf:2: step 'b': --retries: 'x' is not a whole number from 0 to 1000" },
        { "a: true\nb: --frobnicate true\n", "flow.wf:2: step 'b': unknown option --frobnicate" },
        { "a: true\nb: --wait true\n", "flow.wf:2: step 'b': unknown option --wait" },
        { "a: true\nb: true --after\n\nc: -p\n", "flow.wf:4: step 'c': -p needs a value" },
        { "a: echo 'it\n", "flow.wf:1: a ' quote is not closed" },
        { "a: \\\n  echo \"x\nb: true\n", "flow.wf:1: a \" quote is not closed" },
        { "a: true\nb true\n", "flow.wf:2: a step starts with its name and a colon (NAME: "
          "[options] COMMAND...), not 'b'" },
        { "a: --after a true\n", "flow.wf:1: step 'a' waits for itself" },
        { "a: --retries 2\n", "flow.wf:1: step 'a' has no command" },
        { "a: --retry-delay 5 true\n", "flow.wf:1: step 'a': --retry-delay does nothing "
          "without --retries (how many times to run again)" },
        { "# nothing\n\n", "flow.wf: no steps (one per line: NAME: [options] COMMAND...)" },
    };
    for (size_t at = 0; at < sizeof cases / sizeof cases [0]; at++) {
        char error [512];
        drover_workflow_t *workflow = s_parse (cases [at].text, error, sizeof error);
        if (workflow || !streq (error, cases [at].error))
            print_message ("case %zu: %s\n", at, error);
        assert_null (workflow);
        assert_string_equal (error, cases [at].error);
    }
    //  A bad --name
    char error [256];
    assert_null (drover_workflowfile_parse ("f", "a: true", 7, "two words", error, sizeof error));
    assert_non_null (strstr (error, "--name"));
}

//  The splitter alone: quotes, escapes, comments, empty words
static void
test_split (void **state)
{
    char error [128];
    int count = -1;
    char **words = drover_workflowfile_split ("  a 'b c' \"d\\\"e\\n\" f\\ g '' #h i", &count,
                                              error, sizeof error);
    assert_non_null (words);
    assert_int_equal (count, 5);
    assert_string_equal (words [0], "a");
    assert_string_equal (words [1], "b c");
    assert_string_equal (words [2], "d\"e\\n");
    assert_string_equal (words [3], "f g");
    assert_string_equal (words [4], "");
    assert_null (words [5]);
    drover_workflowfile_free (words);
    words = drover_workflowfile_split ("x#y 'a#b'", &count, error, sizeof error);
    assert_int_equal (count, 2);
    assert_string_equal (words [0], "x#y");
    assert_string_equal (words [1], "a#b");
    drover_workflowfile_free (words);
    assert_null (drover_workflowfile_split ("a\\", &count, error, sizeof error));
    assert_string_equal (error, "a backslash ends the line (nothing to escape)");
    drover_workflowfile_free (NULL);
}

//  --begin's times against a fixed clock
static void
test_times (void **state)
{
    setenv ("TZ", "UTC", 1);
    tzset ();
    int64_t now = 1765000000000LL;         //  2025-12-06T05:46:40Z
    char error [256];
    uint64_t msec = 0;
    assert_int_equal (drover_taskopts_parse_time ("+30s", now, &msec, error, sizeof error), 0);
    assert_int_equal (msec, now + 30000);
    assert_int_equal (drover_taskopts_parse_time ("+10m", now, &msec, error, sizeof error), 0);
    assert_int_equal (msec, now + 600000);
    assert_int_equal (drover_taskopts_parse_time ("+2h", now, &msec, error, sizeof error), 0);
    assert_int_equal (msec, now + 7200000);
    assert_int_equal (drover_taskopts_parse_time ("+1d", now, &msec, error, sizeof error), 0);
    assert_int_equal (msec, now + 86400000);
    //  Absolute, UTC and local (TZ=UTC here: the same)
    assert_int_equal (drover_taskopts_parse_time ("2026-01-02T03:04:05Z", now, &msec,
                                                  error, sizeof error), 0);
    assert_int_equal (msec, 1767323045000ULL);
    assert_int_equal (drover_taskopts_parse_time ("2026-01-02T03:04", now, &msec,
                                                  error, sizeof error), 0);
    assert_int_equal (msec, 1767323040000ULL);
    //  A clock time: later today, or tomorrow's when past
    assert_int_equal (drover_taskopts_parse_time ("06:00", now, &msec, error, sizeof error), 0);
    assert_int_equal (msec, 1765000800000ULL);
    assert_int_equal (drover_taskopts_parse_time ("02:00:30", now, &msec, error, sizeof error), 0);
    assert_int_equal (msec, 1765072830000ULL);
    //  Refused: shapes, ranges, the past, nothing
    const char *bad [] = { "", "+", "+0s", "+5", "+5y", "+-5m", "25:00", "12:60", "1:2",
                           "2026-13-01T00:00", "2026-01-02", "2026-01-02T03:04X", "tomorrow",
                           "2026-01-02T03:04:05+01:00", "+99999d" };
    for (size_t at = 0; at < sizeof bad / sizeof bad [0]; at++) {
        if (drover_taskopts_parse_time (bad [at], now, &msec, error, sizeof error) == 0)
            print_message ("'%s' taken\n", bad [at]);
        assert_int_equal (drover_taskopts_parse_time (bad [at], now, &msec, error,
                                                      sizeof error), -1);
        assert_non_null (strstr (error, "--begin"));
    }
    assert_int_equal (drover_taskopts_parse_time ("2020-01-01T00:00Z", now, &msec,
                                                  error, sizeof error), -1);
    assert_non_null (strstr (error, "past already"));
}

//  --array's specs
static void
test_arrays (void **state)
{
    char error [256];
    drover_array_spec_t array;
    assert_int_equal (drover_taskopts_parse_array ("0-999", &array, error, sizeof error), 0);
    assert_int_equal (array.first, 0);
    assert_int_equal (array.step, 1);
    assert_int_equal (array.count, 1000);
    assert_int_equal (array.limit, 0);
    assert_int_equal (drover_taskopts_parse_array ("0-999:2", &array, error, sizeof error), 0);
    assert_int_equal (array.count, 500);
    assert_int_equal (drover_taskopts_parse_array ("0-999%50", &array, error, sizeof error), 0);
    assert_int_equal (array.count, 1000);
    assert_int_equal (array.limit, 50);
    assert_int_equal (drover_taskopts_parse_array ("1-9:2%3", &array, error, sizeof error), 0);
    assert_int_equal (array.first, 1);
    assert_int_equal (array.step, 2);
    assert_int_equal (array.count, 5);
    assert_int_equal (array.limit, 3);
    assert_int_equal (drover_taskopts_parse_array ("7-7", &array, error, sizeof error), 0);
    assert_int_equal (array.count, 1);
    assert_int_equal (drover_taskopts_parse_array ("0-10:3", &array, error, sizeof error), 0);
    assert_int_equal (array.count, 4);             //  0, 3, 6, 9
    struct {
        const char *spec;
        const char *says;
    } bad [] = {
        { "", "is not FIRST-LAST" }, { "5", "is not FIRST-LAST" },
        { "a-b", "is not FIRST-LAST" }, { "0-9:", "is not FIRST-LAST" },
        { "0-9%", "is not FIRST-LAST" }, { "0-9x", "is not FIRST-LAST" },
        { "-1-5", "is not FIRST-LAST" }, { "0-4294967296", "is not FIRST-LAST" },
        { "9-0", "below the first" }, { "0-9:0", "a step of 0" },
        { "0-99999999", "at most" }, { "0-9%0", "would run nothing" },
        { "0-9%10", "limits nothing" },
    };
    for (size_t at = 0; at < sizeof bad / sizeof bad [0]; at++) {
        assert_int_equal (drover_taskopts_parse_array (bad [at].spec, &array, error,
                                                       sizeof error), -1);
        if (!strstr (error, bad [at].says))
            print_message ("'%s': %s\n", bad [at].spec, error);
        assert_non_null (strstr (error, bad [at].says));
    }
}

//  Options one at a time, then together: what would do nothing is refused
static void
test_options (void **state)
{
    char error [256];
    drover_taskopts_t *options = drover_taskopts_new ();
    assert_int_equal (drover_taskopts_apply (options, 'j', "x", error, sizeof error), 1);
    assert_int_equal (drover_taskopts_apply (options, DROVER_TASKOPTS_AFTER, "1,,2", error,
                                             sizeof error), -1);
    assert_non_null (strstr (error, "empty item"));
    assert_int_equal (drover_taskopts_apply (options, DROVER_TASKOPTS_RETRY_DELAY, "0", error,
                                             sizeof error), -1);
    assert_int_equal (drover_taskopts_apply (options, DROVER_TASKOPTS_RETRY_MAX_DELAY, "30",
                                             error, sizeof error), 0);
    assert_int_equal (drover_taskopts_check (options, error, sizeof error), -1);
    assert_string_equal (error, "--retry-max-delay does nothing without --retry-delay");
    assert_int_equal (drover_taskopts_apply (options, DROVER_TASKOPTS_RETRY_DELAY, "2.5", error,
                                             sizeof error), 0);
    assert_int_equal (drover_taskopts_check (options, error, sizeof error), -1);
    assert_non_null (strstr (error, "without --retries"));
    assert_int_equal (drover_taskopts_apply (options, DROVER_TASKOPTS_RETRIES, "2", error,
                                             sizeof error), 0);
    assert_int_equal (drover_taskopts_check (options, error, sizeof error), 0);
    assert_int_equal (drover_taskopts_apply (options, DROVER_TASKOPTS_AFTER_FAIL, "4,x", error,
                                             sizeof error), 0);
    assert_int_equal (drover_taskopts_afters (options), 2);
    assert_string_equal (drover_taskopts_after_name (options, 1), "x");
    assert_int_equal (drover_taskopts_after_kind (options, 1), DROVER_AFTER_FAIL);
    assert_null (drover_taskopts_after_name (options, 2));
    const char *argv [] = { "echo", "hi" };
    drover_msg_t *submit = drover_taskopts_submit (options, 2, argv, error, sizeof error);
    assert_non_null (submit);
    assert_int_equal (submit->retry_delay, 2500);
    assert_int_equal (submit->retry_max_delay, 30000);
    assert_int_equal (submit->retries, 2);
    assert_int_equal (submit->nafter, 0);          //  the caller's to fill
    drover_msg_destroy (&submit);
    drover_taskopts_destroy (&options);
    assert_null (options);
    drover_taskopts_destroy (&options);
}

//  The options of sharing a cluster: --owner (default the login name when
//  it is an id), --device (repeatable), --preemptible; in a workflow file
//  too
static void
test_share_options (void **state)
{
    char error [256];
    drover_taskopts_t *options = drover_taskopts_new ();
    struct passwd *user = getpwuid (getuid ());
    bool named = user && user->pw_name && drover_id_valid (user->pw_name);
    assert_string_equal (drover_taskopts_msg (options)->owner, named? user->pw_name: "");
    assert_int_equal (drover_taskopts_apply (options, DROVER_TASKOPTS_OWNER, "a b", error,
                                             sizeof error), -1);
    assert_non_null (strstr (error, "--owner"));
    assert_int_equal (drover_taskopts_apply (options, DROVER_TASKOPTS_OWNER, "alice", error,
                                             sizeof error), 0);
    assert_int_equal (drover_taskopts_apply (options, DROVER_TASKOPTS_DEVICE, "GPU=1", error,
                                             sizeof error), -1);
    assert_non_null (strstr (error, "--device: 'GPU=1': a device name"));
    assert_int_equal (drover_taskopts_apply (options, DROVER_TASKOPTS_DEVICE, "gpu=0", error,
                                             sizeof error), -1);
    assert_int_equal (drover_taskopts_apply (options, DROVER_TASKOPTS_DEVICE, "gpu=2", error,
                                             sizeof error), 0);
    assert_int_equal (drover_taskopts_apply (options, DROVER_TASKOPTS_DEVICE, "fpga=1,gpu=3",
                                             error, sizeof error), 0);
    assert_int_equal (drover_taskopts_apply (options, DROVER_TASKOPTS_PREEMPTIBLE, NULL, error,
                                             sizeof error), 0);
    const char *argv [] = { "true" };
    drover_msg_t *submit = drover_taskopts_submit (options, 1, argv, error, sizeof error);
    assert_non_null (submit);
    assert_string_equal (submit->owner, "alice");
    assert_int_equal (submit->ndevices, 2);
    assert_string_equal (submit->devices [0].name, "fpga");
    assert_int_equal (submit->devices [1].count, 3);
    assert_true (submit->flags & DROVER_SUBMIT_PREEMPTIBLE);
    drover_msg_destroy (&submit);
    drover_taskopts_destroy (&options);

    drover_workflow_t *workflow = s_parse ("train: --device gpu=1 --owner bob --preemptible "
                                           "-- python train.py\n", error, sizeof error);
    assert_non_null (workflow);
    const drover_msg_t *step = drover_submit_msg (drover_workflow_submit (workflow, 1));
    assert_string_equal (step->owner, "bob");
    assert_int_equal (step->ndevices, 1);
    assert_string_equal (step->devices [0].name, "gpu");
    assert_true (step->flags & DROVER_SUBMIT_PREEMPTIBLE);
    drover_workflow_destroy (&workflow);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_good_file),
        cmocka_unit_test (test_errors_name_lines),
        cmocka_unit_test (test_split),
        cmocka_unit_test (test_times),
        cmocka_unit_test (test_arrays),
        cmocka_unit_test (test_options),
        cmocka_unit_test (test_share_options),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
