/*  =========================================================================
    test_cli_explain - `drover explain` through the real binary, a real
    broker and real workers: tasks no worker could ever run (a label none
    has, more procs or memory than any has) name the reason per worker and
    the verdict; a task waiting on a busy worker says how much must free
    there; a task not waiting says its state, worker and attempt
    =========================================================================
*/

#include "testutil.h"
#include <sys/wait.h>

//  What one test holds
typedef struct {
    testutil_cluster_t *cluster;    //  broker and two workers
    zsock_t *dealer;            //  to ask the broker directly
} s_fixture_t;

static int
s_setup (void **state)
{
    s_fixture_t *self = (s_fixture_t *) zmalloc (sizeof (s_fixture_t));
    self->cluster = testutil_cluster_new (NULL);
    const char *small [] = { "--mem", "24G", "--label", "zone=a", NULL };
    const char *big [] = { "--mem", "24G", "--label", "zone=b", NULL };
    testutil_cluster_add_worker (self->cluster, 0, "small", 4, small);
    testutil_cluster_add_worker (self->cluster, 1, "big", 16, big);
    self->dealer = testutil_dealer (self->cluster);
    assert_true (testutil_wait_workers (self->dealer, 2, 10000));
    *state = self;
    return 0;
}

static int
s_teardown (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    zsock_destroy (&self->dealer);
    testutil_cluster_destroy (&self->cluster);
    free (self);
    return 0;
}

//  Run `drover --broker E ARGS...` and return its exit status (-1 if it
//  had to be stopped); stdout into output
static int
s_drover (s_fixture_t *self, const char *const args [], char *output, size_t size)
{
    const char *argv [24] = { DROVER_BIN, "--broker", self->cluster->endpoint };
    int argc = 3;
    for (int index = 0; args [index] && argc < 23; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    int status = testutil_run_output (argv, output, size, 20000);
    return status != -1 && WIFEXITED (status)? WEXITSTATUS (status): -1;
}

//  Submit a task with flags; returns its id
static uint64_t
s_submit (s_fixture_t *self, const char *const args [])
{
    char output [256];
    const char *argv [16] = { "submit" };
    int argc = 1;
    for (int index = 0; args [index]; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    assert_int_equal (s_drover (self, argv, output, sizeof output), 0);
    uint64_t task = strtoull (output, NULL, 10);
    assert_true (task > 0);
    return task;
}

//  Run `drover explain ID [--json]`, which must exit 0; output says it
static void
s_explain (s_fixture_t *self, uint64_t task, bool json, char *output, size_t size)
{
    char id [32];
    snprintf (id, sizeof id, "%" PRIu64, task);
    const char *args [] = { "explain", id, json? "--json": NULL, NULL };
    assert_int_equal (s_drover (self, args, output, size), 0);
}

//  Assert that output holds needle, showing it if not
static void
s_holds (const char *output, const char *needle)
{
    if (!strstr (output, needle))
        fail_msg ("expected '%s' in:\n%s", needle, output);
}

//  A label no worker has, more procs or memory than any has: each worker's
//  reason, and the verdict that no worker could ever run it
static void
test_explain_names_what_no_worker_has (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    char output [4096];
    const char *label [] = { "--label", "zone=c", "--", "true", NULL };
    const char *procs [] = { "--procs", "64", "--", "true", NULL };
    const char *mem [] = { "--mem", "30G", "--", "true", NULL };
    uint64_t labelled = s_submit (self, label);
    uint64_t wide = s_submit (self, procs);
    uint64_t heavy = s_submit (self, mem);

    s_explain (self, labelled, false, output, sizeof output);
    s_holds (output, "QUEUED");
    s_holds (output, "2 workers (");
    s_holds (output, "): lacks label zone=c");
    s_holds (output, "verdict: no worker could ever run it: no worker has label zone=c");

    s_explain (self, wide, false, output, sizeof output);
    s_holds (output, "2 workers (big, small): has 16 procs of 64 asked");
    s_holds (output, "the most procs a worker has is 16, of 64 asked");
    s_holds (output, "queue:   first in the queue");

    s_explain (self, heavy, false, output, sizeof output);
    s_holds (output, "has 24G memory of 30G asked");
    s_holds (output, "verdict: no worker could ever run it: the most memory a worker has is 24G");
    s_holds (output, "2 ahead: 1 asking more procs, 1 earlier of the same");

    s_explain (self, heavy, true, output, sizeof output);
    s_holds (output, "\"never\":true");
    s_holds (output, "\"code\":\"mem\",\"count\":2,\"a\":25769803776,\"b\":32212254720");
    s_holds (output, "\"reason\":\"mem 30G>24G\"");
}

//  A task waiting for a busy worker: how much must free there; the running
//  one: its state, worker and attempt
static void
test_explain_busy_worker (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    char output [4096];
    const char *hog [] = { "--procs", "14", "--", "sleep", "60", NULL };
    const char *next [] = { "--procs", "8", "--", "true", NULL };
    uint64_t running = s_submit (self, hog);
    char worker [DROVER_ID_MAX + 1];
    assert_true (testutil_wait_running (self->dealer, running, worker, 10000));
    assert_string_equal (worker, "big");
    uint64_t waiting = s_submit (self, next);

    s_explain (self, waiting, false, output, sizeof output);
    s_holds (output, "1 worker (small): has 4 procs of 8 asked");
    s_holds (output, "verdict: fits on big when 6 more procs free");

    s_explain (self, running, false, output, sizeof output);
    s_holds (output, "RUNNING on big, attempt 1");

    //  An id the broker never gave
    const char *unknown [] = { "explain", "999", NULL };
    assert_int_equal (s_drover (self, unknown, output, sizeof output), 1);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_explain_names_what_no_worker_has, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_explain_busy_worker, s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
