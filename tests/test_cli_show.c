/*  =========================================================================
    test_cli_show - `drover show` and `drover logs` through the real
    binary, against a real broker and real workers: what happened to a
    task, seen again after it ended (and after a broker restart)

    Each command runs as a child with its stdout and stderr in files, so
    that output is compared byte for byte (a non-UTF-8 byte, no trailing
    newline) and what is said on stderr is checked apart.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_keys.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <sys/wait.h>
#include <sys/stat.h>
#include <fcntl.h>

//  What one command run gave
typedef struct {
    int status;                 //  exit status, or -1 if it had to be stopped
    byte *out;                  //  its stdout, owned
    size_t out_size;            //  bytes
    char *err;                  //  its stderr, NUL-ended, owned
} s_run_t;

//  Read a whole file into a fresh buffer
static byte *
s_read (const char *path, size_t *size_p)
{
    FILE *file = fopen (path, "rb");
    assert_non_null (file);
    size_t capacity = 4096, size = 0;
    byte *data = (byte *) malloc (capacity + 1);
    size_t got;
    while ((got = fread (data + size, 1, capacity - size, file)) > 0) {
        size += got;
        if (size == capacity) {
            capacity *= 2;
            data = (byte *) realloc (data, capacity + 1);
        }
    }
    fclose (file);
    data [size] = 0;
    *size_p = size;
    return data;
}

//  Run `drover --broker ENDPOINT [keys] ARGS...`, its stdout and stderr in
//  files; the caller frees with s_run_free
static s_run_t
s_drover (testutil_cluster_t *cluster, const char *const *keys, const char *const args [])
{
    const char *argv [32] = { DROVER_BIN, "--broker", cluster->endpoint };
    int argc = 3;
    for (int index = 0; keys && keys [index]; index++)
        argv [argc++] = keys [index];
    for (int index = 0; args [index] && argc < 31; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    char out_path [96], err_path [96];
    snprintf (out_path, sizeof out_path, "%s/cli.out", cluster->logdir);
    snprintf (err_path, sizeof err_path, "%s/cli.err", cluster->logdir);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        int out = open (out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int err = open (err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (out < 0 || err < 0)
            _exit (127);
        dup2 (out, STDOUT_FILENO);
        dup2 (err, STDERR_FILENO);
        execv (argv [0], (char *const *) argv);
        _exit (127);
    }
    s_run_t run = { 0 };
    run.status = testutil_wait_exit (pid, 60000);
    if (run.status == -1)
        testutil_stop (pid, 1000);
    else
        run.status = WIFEXITED (run.status)? WEXITSTATUS (run.status): 128 + WTERMSIG (run.status);
    run.out = s_read (out_path, &run.out_size);
    size_t size;
    run.err = (char *) s_read (err_path, &size);
    return run;
}

static void
s_run_free (s_run_t *run)
{
    free (run->out);
    free (run->err);
}

//  The number after "name": in a JSON text, or -1 if absent or null
static double
s_number (const char *json, const char *name)
{
    char key [64];
    snprintf (key, sizeof key, "\"%s\":", name);
    const char *found = strstr (json, key);
    if (!found || strncmp (found + strlen (key), "null", 4) == 0)
        return -1;
    return strtod (found + strlen (key), NULL);
}

//  Count the occurrences of needle in text
static int
s_count (const char *text, const char *needle)
{
    int count = 0;
    for (const char *found = strstr (text, needle); found; found = strstr (found + 1, needle))
        count++;
    return count;
}

//  Wait for a task's end, in state
static void
s_await_end (zsock_t *dealer, uint64_t task, int state)
{
    drover_msg_t *done = testutil_expect_done (dealer, task, state, 30000);
    drover_msg_destroy (&done);
}

//  Submit script (with retries, told of its end) and wait for its end in
//  state; returns the task's id
static uint64_t
s_run_to_end (zsock_t *dealer, const char *script, uint32_t retries, int state)
{
    drover_msg_t *submit = testutil_submit_msg (script, 0, 1, DROVER_SUBMIT_NOTIFY);
    submit->retries = retries;
    uint64_t task = testutil_submit (dealer, submit);      //  takes submit
    s_await_end (dealer, task, state);
    return task;
}

//  Start a broker with one worker, w1 of 2 procs; a dealer to it in *dealer_p
static testutil_cluster_t *
s_cluster_with_w1 (zsock_t **dealer_p)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    testutil_cluster_add_worker (cluster, 0, "w1", 2, NULL);
    *dealer_p = testutil_dealer (cluster);
    return cluster;
}

//  Run `drover [keys] COMMAND [OPTION] TASK` (option NULL: none); the
//  caller frees with s_run_free
static s_run_t
s_drover_on_task (testutil_cluster_t *cluster, const char *const *keys, const char *command,
                  const char *option, uint64_t task)
{
    char id [24];
    snprintf (id, sizeof id, "%llu", (unsigned long long) task);
    const char *args [] = { command, option? option: id, option? id: NULL, NULL };
    return s_drover (cluster, keys, args);
}

//  Assert a run exited 0 with exactly size bytes of data on stdout, then
//  free it
static void
s_assert_output (s_run_t *run, const void *data, size_t size)
{
    assert_int_equal (run->status, 0);
    assert_int_equal (run->out_size, size);
    assert_memory_equal (run->out, data, size);
    s_run_free (run);
}

//  Show a task with --json and return its output (caller frees)
static char *
s_show_json (testutil_cluster_t *cluster, const char *const *keys, uint64_t task)
{
    s_run_t run = s_drover_on_task (cluster, keys, "show", "--json", task);
    if (run.status != 0)
        fail_msg ("drover show --json %llu: status %d, stderr: %s", (unsigned long long) task,
                  run.status, run.err);
    free (run.err);
    return (char *) run.out;
}


//  ---------------------------------------------------------------------

//  A task that succeeded: exit 0, its times in order, its run time about
//  what it slept; the human form says the same in aligned lines
static void
test_show_succeeded_task (void **state)
{
    zsock_t *dealer;
    testutil_cluster_t *cluster = s_cluster_with_w1 (&dealer);
    uint64_t task = s_run_to_end (dealer, "sleep 0.3; echo done", 0, DROVER_TASK_SUCCEEDED);

    char *json = s_show_json (cluster, NULL, task);
    assert_non_null (strstr (json, "\"state\":\"succeeded\""));
    assert_true (s_number (json, "exit_code") == 0);
    double queued = s_number (json, "queued_ms");
    double started = s_number (json, "started_ms");
    double ended = s_number (json, "ended_ms");
    assert_true (queued > 1.7e12);
    assert_true (queued <= started && started <= ended);
    double run_time = s_number (json, "run_time_ms");
    assert_true (run_time >= 300 && run_time < 10000);
    assert_true (s_number (json, "total_ms") >= run_time);
    assert_non_null (strstr (json, "\"queued\":\"20"));
    assert_non_null (strstr (json, "Z\",\"queued_ms\""));       //  ISO 8601 UTC
    assert_int_equal (s_count (json, "\"attempt\":1,\"worker\":\"w1\""), 1);
    free (json);

    s_run_t run = s_drover_on_task (cluster, NULL, "show", NULL, task);
    assert_int_equal (run.status, 0);
    const char *text = (const char *) run.out;
    assert_non_null (strstr (text, "\nstate:        SUCCEEDED\n"));
    assert_non_null (strstr (text, "\nexit:         0\n"));
    assert_non_null (strstr (text, "\ncommand:      sh -c 'sleep 0.3; echo done'\n"));
    assert_non_null (strstr (text, "\nworker:       w1\n"));
    assert_non_null (strstr (text, "\nrun time:     0."));
    assert_non_null (strstr (text, "  #1 on w1: offered "));
    s_run_free (&run);

    //  An id never given: 404, in words, exit 1
    const char *unknown [] = { "show", "999", NULL };
    run = s_drover (cluster, NULL, unknown);
    assert_int_equal (run.status, 1);
    assert_non_null (strstr (run.err, "unknown task"));
    s_run_free (&run);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  A task that failed with retries: each attempt listed with its exit
static void
test_show_failed_with_retries (void **state)
{
    zsock_t *dealer;
    testutil_cluster_t *cluster = s_cluster_with_w1 (&dealer);
    uint64_t task = s_run_to_end (dealer, "exit 3", 2, DROVER_TASK_FAILED);

    char *json = s_show_json (cluster, NULL, task);
    assert_non_null (strstr (json, "\"state\":\"failed\""));
    assert_true (s_number (json, "exit_code") == 3);
    assert_true (s_number (json, "retries") == 2);
    assert_true (s_number (json, "retries_left") == 0);
    assert_int_equal (s_count (json, "\"how\":\"exit 3, requeued\""), 2);
    assert_int_equal (s_count (json, "\"how\":\"exit 3\""), 1);
    for (int attempt = 1; attempt <= 3; attempt++) {
        char entry [48];
        snprintf (entry, sizeof entry, "{\"attempt\":%d,\"worker\":\"w1\"", attempt);
        assert_non_null (strstr (json, entry));
    }
    free (json);
    s_run_t run = s_drover_on_task (cluster, NULL, "show", NULL, task);
    assert_int_equal (run.status, 0);
    assert_non_null (strstr ((char *) run.out, "\nretries:      0 left of 2\n"));
    assert_int_equal (s_count ((char *) run.out, ": exit 3, requeued\n"), 2);
    assert_non_null (strstr ((char *) run.out, "  #3 on w1: "));
    s_run_free (&run);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  A task whose worker was SIGKILLed: its attempt lost, and it ran again
//  on the other worker
static void
test_show_worker_killed (void **state)
{
    const char *flags [] = { "--set", "health/heartbeat=200", "--set", "health/lost-after=1500",
                             NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "w1", 1, NULL);
    testutil_cluster_add_worker (cluster, 1, "w2", 1, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 2, 10000));
    //  The first run leaves a mark and sleeps; the second sees it and ends
    char mark [96], script [256];
    snprintf (mark, sizeof mark, "%s/mark", cluster->logdir);
    snprintf (script, sizeof script, "if [ -e %s ]; then exit 0; fi; touch %s; sleep 60",
              mark, mark);
    drover_msg_t *submit = testutil_submit_msg (script, 0, 1, DROVER_SUBMIT_NOTIFY);
    uint64_t task = testutil_submit (dealer, submit);      //  takes submit
    char worker [DROVER_ID_MAX + 1];
    assert_true (testutil_wait_running (dealer, task, worker, 10000));
    //  Its mark made (RUNNING is its STARTED, which may come before)
    int64_t deadline = zclock_mono () + 10000;
    while (access (mark, F_OK) != 0 && zclock_mono () < deadline)
        zclock_sleep (20);
    assert_int_equal (access (mark, F_OK), 0);
    int slot = streq (worker, "w1")? 0: 1;
    assert_int_equal (kill (cluster->workers [slot], SIGKILL), 0);
    testutil_wait_exit (cluster->workers [slot], 5000);
    cluster->workers [slot] = 0;
    s_await_end (dealer, task, DROVER_TASK_SUCCEEDED);

    char *json = s_show_json (cluster, NULL, task);
    char first [128], second [128];
    snprintf (first, sizeof first, "{\"attempt\":1,\"worker\":\"%s\"", worker);
    snprintf (second, sizeof second, "{\"attempt\":2,\"worker\":\"%s\"",
              slot == 0? "w2": "w1");
    assert_non_null (strstr (json, first));
    assert_non_null (strstr (json, second));
    assert_non_null (strstr (json, "\"how\":\"worker lost: "));
    assert_true (s_number (json, "lost") == 1);
    assert_non_null (strstr (json, "\"state\":\"succeeded\""));
    free (json);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  logs prints the captured bytes exactly (a byte that is not UTF-8, no
//  trailing newline), --stderr the other stream; says on stderr when the
//  output was cut at the limit; a running task: exit 1 unless --follow
static void
test_logs_byte_exact (void **state)
{
    zsock_t *dealer;
    testutil_cluster_t *cluster = s_cluster_with_w1 (&dealer);
    uint64_t task = s_run_to_end (dealer, "printf 'one\\ntwo\\377end'; printf 'warn\\376' >&2", 0,
                                  DROVER_TASK_SUCCEEDED);
    s_run_t run = s_drover_on_task (cluster, NULL, "logs", NULL, task);
    assert_string_equal (run.err, "");
    s_assert_output (&run, "one\ntwo\377end", 11);
    run = s_drover_on_task (cluster, NULL, "logs", "--stderr", task);
    s_assert_output (&run, "warn\376", 5);

    //  Past the capture limit: the first DROVER_OUTPUT_MAX bytes, and a word
    uint64_t big = s_run_to_end (dealer, "head -c 1100000 /dev/zero", 0, DROVER_TASK_SUCCEEDED);
    run = s_drover_on_task (cluster, NULL, "logs", NULL, big);
    assert_int_equal (run.status, 0);
    assert_int_equal (run.out_size, DROVER_OUTPUT_MAX);
    assert_non_null (strstr (run.err, "truncated at the capture limit"));
    s_run_free (&run);

    //  Still running: said, exit 1; --follow waits for the end
    drover_msg_t *submit = testutil_submit_msg ("sleep 1; printf late", 0, 1, 0);
    uint64_t running = testutil_submit (dealer, submit);      //  takes submit
    char worker [DROVER_ID_MAX + 1];
    assert_true (testutil_wait_running (dealer, running, worker, 10000));
    run = s_drover_on_task (cluster, NULL, "logs", NULL, running);
    assert_int_equal (run.status, 1);
    assert_non_null (strstr (run.err, "is RUNNING"));
    assert_int_equal (run.out_size, 0);
    s_run_free (&run);
    run = s_drover_on_task (cluster, NULL, "logs", "-f", running);
    s_assert_output (&run, "late", 4);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  After a broker restart (durability full), show says the same of a
//  finished task: its times, result and every attempt
static void
test_show_after_restart (void **state)
{
    zsock_t *dealer;
    testutil_cluster_t *cluster = s_cluster_with_w1 (&dealer);
    uint64_t task = s_run_to_end (dealer, "echo out; exit 4", 2, DROVER_TASK_FAILED);
    char *before = s_show_json (cluster, NULL, task);
    assert_int_equal (s_count (before, "\"how\":\"exit 4, requeued\""), 2);
    testutil_cluster_kill_restart (cluster, NULL);
    char *after = s_show_json (cluster, NULL, task);
    assert_string_equal (after, before);
    free (before);
    free (after);
    s_run_t run = s_drover_on_task (cluster, NULL, "logs", NULL, task);
    s_assert_output (&run, "out\n", 4);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Wait on the wire for one task; return its TASK DONE (caller destroys)
static drover_msg_t *
s_wait_done (zsock_t *dealer, uint64_t task)
{
    drover_msg_t *wait = testutil_wait_msg (&task, 1);
    drover_msg_t *ok = testutil_request (dealer, &wait, 10000);
    assert_non_null (ok);
    assert_int_equal (ok->code, DROVER_CODE_OK);
    drover_msg_destroy (&ok);
    drover_msg_t *done = testutil_wait_done (dealer, task, 10000);
    assert_non_null (done);
    return done;
}

//  A finished task evicted from the broker's memory (past keep-finished) is
//  still in its durable history: wait, show and logs answer from there,
//  with its real state, exit status and output, not "expired"
static void
test_evicted_task_answered_from_history (void **state)
{
    const char *flags [] = { "--set", "assign/keep-finished=1", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "w1", 2, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    uint64_t first = s_run_to_end (dealer, "echo first; echo oops >&2", 0,
                                   DROVER_TASK_SUCCEEDED);
    uint64_t failed = s_run_to_end (dealer, "echo second; exit 3", 0, DROVER_TASK_FAILED);
    s_run_to_end (dealer, "echo third", 0, DROVER_TASK_SUCCEEDED);

    drover_msg_t *done = s_wait_done (dealer, first);
    if (done->end == DROVER_END_EXPIRED)
        fail_msg ("task %llu: expired, though the history keeps it", (unsigned long long) first);
    assert_int_equal (done->state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (done->exit_code, 0);
    assert_string_equal (done->worker, "w1");
    assert_int_equal (done->out_size, 6);
    assert_memory_equal (done->out, "first\n", 6);
    assert_int_equal (done->err_size, 5);
    assert_memory_equal (done->err, "oops\n", 5);
    drover_msg_destroy (&done);
    done = s_wait_done (dealer, failed);
    assert_int_equal (done->state, DROVER_TASK_FAILED);
    assert_int_equal (done->exit_code, 3);
    drover_msg_destroy (&done);

    char first_id [24], failed_id [24];
    snprintf (first_id, sizeof first_id, "%llu", (unsigned long long) first);
    snprintf (failed_id, sizeof failed_id, "%llu", (unsigned long long) failed);
    const char *wait [] = { "wait", "--json", first_id, failed_id, NULL };
    s_run_t run = s_drover (cluster, NULL, wait);
    assert_non_null (strstr ((char *) run.out, "\"succeeded\":1,\"failed\":1"));
    assert_non_null (strstr ((char *) run.out, "\"expired\":0"));
    s_run_free (&run);
    run = s_drover_on_task (cluster, NULL, "logs", NULL, first);
    assert_string_equal (run.err, "");
    s_assert_output (&run, "first\n", 6);
    run = s_drover_on_task (cluster, NULL, "logs", "--stderr", first);
    s_assert_output (&run, "oops\n", 5);
    char *json = s_show_json (cluster, NULL, failed);
    assert_non_null (strstr (json, "\"state\":\"failed\""));
    assert_true (s_number (json, "exit_code") == 3);
    free (json);
    //  An id never given is still unknown
    const char *unknown [] = { "show", "999", NULL };
    run = s_drover (cluster, NULL, unknown);
    assert_int_equal (run.status, 1);
    assert_non_null (strstr (run.err, "unknown task"));
    s_run_free (&run);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Copy a public key file into the broker's keys directory
static void
s_allow (const char *from, const char *to)
{
    char *text = testutil_slurp (from);
    assert_non_null (text);
    FILE *file = fopen (to, "w");
    assert_non_null (file);
    fputs (text, file);
    fclose (file);
    free (text);
}

//  Under CURVE a client key sees its own task, and is refused (403)
//  another key's, as CANCEL and WAIT are
static void
test_show_forbidden_for_another_key (void **state)
{
    char dir [64], path [160], from [160];
    snprintf (dir, sizeof dir, "/tmp/drover-cli-show-%d", (int) getpid ());
    testutil_remove_tree (dir);
    testutil_keygen (dir, "broker");
    testutil_keygen (dir, "alice");
    testutil_keygen (dir, "bob");
    const char *roles [] = { "keys", "keys/workers", "keys/clients", "keys/admins" };
    for (int index = 0; index < 4; index++) {
        snprintf (path, sizeof path, "%s/%s", dir, roles [index]);
        assert_int_equal (mkdir (path, 0755), 0);
    }
    const char *clients [] = { "alice", "bob" };
    for (int index = 0; index < 2; index++) {
        snprintf (from, sizeof from, "%s/%s.key", dir, clients [index]);
        snprintf (path, sizeof path, "%s/keys/clients/%s.key", dir, clients [index]);
        s_allow (from, path);
    }
    char broker_key [96], keys [96], alice [96], bob [96];
    snprintf (broker_key, sizeof broker_key, "%s/broker.key", dir);
    snprintf (keys, sizeof keys, "%s/keys", dir);
    snprintf (alice, sizeof alice, "%s/alice.key", dir);
    snprintf (bob, sizeof bob, "%s/bob.key", dir);
    const char *flags [] = { "--key", broker_key, "--keys", keys, NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    const char *as_alice [] = { "--key", alice, "--server-key", broker_key, NULL };
    const char *as_bob [] = { "--key", bob, "--server-key", broker_key, NULL };
    const char *submit [] = { "submit", "--", "true", NULL };
    s_run_t run = s_drover (cluster, as_alice, submit);
    if (run.status != 0)
        fail_msg ("submit as alice: status %d: %s", run.status, run.err);
    uint64_t task = strtoull ((char *) run.out, NULL, 10);
    assert_true (task > 0);
    s_run_free (&run);

    char *json = s_show_json (cluster, as_alice, task);
    assert_non_null (strstr (json, "\"owner\":\"alice\""));
    assert_non_null (strstr (json, "\"state\":\"queued\""));
    free (json);
    run = s_drover_on_task (cluster, as_bob, "show", NULL, task);
    assert_int_equal (run.status, 1);
    assert_int_equal (run.out_size, 0);
    assert_non_null (strstr (run.err, "403"));
    assert_non_null (strstr (run.err, "belongs to another key"));
    s_run_free (&run);
    run = s_drover_on_task (cluster, as_bob, "logs", NULL, task);
    assert_int_equal (run.status, 1);
    assert_non_null (strstr (run.err, "403"));
    s_run_free (&run);
    testutil_cluster_destroy (&cluster);
    testutil_remove_tree (dir);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_show_succeeded_task),
        cmocka_unit_test (test_show_failed_with_retries),
        cmocka_unit_test (test_show_worker_killed),
        cmocka_unit_test (test_logs_byte_exact),
        cmocka_unit_test (test_show_after_restart),
        cmocka_unit_test (test_evicted_task_answered_from_history),
        cmocka_unit_test (test_show_forbidden_for_another_key),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
