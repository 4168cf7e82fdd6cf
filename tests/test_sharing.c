/*  =========================================================================
    test_sharing - sharing a cluster end to end, on a real broker and real
    workers over loopback, through the real `drover` CLI:
    - a submit past a queued quota is refused with the figures, and
      another owner is not held by it;
    - `drover share set` changes a quota at run time, `drover share --json`
      shows it, and it, the settings' quotas and a running task's device
      indices survive a kill -9 of the broker;
    - two owners of weights 1 and 3, with CURVE keys, who both keep four
      procs busy: their split of the procs, measured from the tasks' own
      records of when they ran, is 25% / 75% within 5 points.
    =========================================================================
*/

#include "testutil_cluster.h"
#include "testutil_keys.h"
#include <sys/stat.h>
#include <sys/wait.h>

//  Run the CLI with args, fail unless it exits with status and holds needle
static void
s_cli (testutil_cluster_t *cluster, const char *const args [], int status, const char *needle,
       testutil_cli_t *run)
{
    testutil_cli (cluster->endpoint, args, run);
    testutil_cli_expect (run, status, status? run->err: run->out, needle);
}

//  Submit past a queued quota: refused with the figures; `share set` at
//  run time; the quotas and a task's device indices survive kill -9
static void
test_quotas_refused_and_kept (void **state)
{
    const char *flags [] = { "--set", "share/quotas=alice:queued=2", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    //  The tasks ask a label no worker has: they stay queued throughout
    const char *alice [] = { "submit", "--owner", "alice", "--label", "pool=none", "--", "true",
                             NULL };
    s_cli (cluster, alice, 0, "", run);
    s_cli (cluster, alice, 0, "", run);
    s_cli (cluster, alice, 1, "quota: alice has 2 tasks queued, at most 2", run);
    const char *bob [] = { "submit", "--owner", "bob", "--label", "pool=none", "--", "true",
                           NULL };
    s_cli (cluster, bob, 0, "", run);
    //  An admin sets bob's quota at run time: it holds at once
    const char *set [] = { "share", "set", "bob", "--max-queued", "1", NULL };
    s_cli (cluster, set, 0, "bob: set", run);
    s_cli (cluster, bob, 1, "quota: bob has 1 tasks queued, at most 1", run);
    const char *list [] = { "share", "--json", NULL };
    s_cli (cluster, list, 0, "\"name\":\"bob\"", run);
    testutil_assert_json (run->out);
    assert_non_null (strstr (run->out, "queued=1"));
    assert_non_null (strstr (run->out, "queued=2"));
    //  A task holding a device, running when the broker is killed
    testutil_cluster_add_worker (cluster, 0, "w1", 2, (const char *[]) { "--device", "gpu=2",
                                                                          NULL });
    const char *gpu [] = { "submit", "--owner", "carol", "--device", "gpu=1", "--",
                           "sleep", "30", NULL };
    s_cli (cluster, gpu, 0, "", run);
    char id [32];
    snprintf (id, sizeof id, "%llu", strtoull (run->out, NULL, 10));
    const char *show [] = { "show", id, "--json", NULL };
    int64_t deadline = zclock_mono () + 20000;
    do {
        testutil_cli (cluster->endpoint, show, run);
        if (strstr (run->out, "\"assigned\":\"gpu=0\""))
            break;
        zclock_sleep (50);      //  polling the CLI: each turn is a real round trip
    } while (zclock_mono () < deadline);
    testutil_cli_expect (run, 0, run->out, "\"assigned\":\"gpu=0\"");
    testutil_cluster_kill_restart (cluster, flags);
    s_cli (cluster, bob, 1, "quota: bob has 1 tasks queued, at most 1", run);
    s_cli (cluster, alice, 1, "quota: alice has 2 tasks queued, at most 2", run);
    s_cli (cluster, list, 0, "queued=1", run);
    s_cli (cluster, show, 0, "\"assigned\":\"gpu=0\"", run);
    assert_non_null (strstr (run->out, "\"devices\":\"gpu=1\""));
    //  Dropping bob's quota frees him, and that too is kept
    const char *drop [] = { "share", "drop", "bob", NULL };
    s_cli (cluster, drop, 0, "bob: dropped", run);
    s_cli (cluster, bob, 0, "", run);
    free (run);
    testutil_cluster_destroy (&cluster);
}

//  Copy file from to path to, mode 0644
static void
s_copy (const char *from, const char *to)
{
    FILE *in = fopen (from, "r");
    FILE *out = fopen (to, "w");
    assert_non_null (in);
    assert_non_null (out);
    char buffer [4096];
    size_t size;
    while ((size = fread (buffer, 1, sizeof buffer, in)) > 0)
        assert_int_equal (fwrite (buffer, 1, size, out), size);
    fclose (in);
    fclose (out);
}

//  The records one task writes: "owner start_ns end_ns"
typedef struct {
    char owner [16];
    long long start;
    long long end;
} s_record_t;

//  Two owners of weights 1 and 3, each with CURVE keys, keep four procs
//  busy: alice's share of the proc time while both wait is 25% +- 5
static void
test_fair_split_with_keys (void **state)
{
    char dir [64], path [200], from [200];
    snprintf (dir, sizeof dir, "/tmp/drover-sharing-%d", (int) getpid ());
    testutil_remove_tree (dir);
    testutil_keygen (dir, "broker");
    testutil_keygen (dir, "alice");
    testutil_keygen (dir, "bob");
    testutil_keygen_worker (dir, "worker", NULL);
    const char *roles [] = { "keys", "keys/workers", "keys/clients", "keys/admins" };
    for (int index = 0; index < 4; index++) {
        snprintf (path, sizeof path, "%s/%s", dir, roles [index]);
        assert_int_equal (mkdir (path, 0755), 0);
    }
    const char *clients [] = { "alice", "bob" };
    for (int index = 0; index < 2; index++) {
        snprintf (from, sizeof from, "%s/%s.key", dir, clients [index]);
        snprintf (path, sizeof path, "%s/keys/clients/%s.key", dir, clients [index]);
        s_copy (from, path);
    }
    snprintf (from, sizeof from, "%s/worker.key", dir);
    snprintf (path, sizeof path, "%s/keys/workers/worker.key", dir);
    s_copy (from, path);
    char broker_key [96], keys [96], alice_key [96], bob_key [96], worker_key [96];
    snprintf (broker_key, sizeof broker_key, "%s/broker.key", dir);
    snprintf (keys, sizeof keys, "%s/keys", dir);
    snprintf (alice_key, sizeof alice_key, "%s/alice.key", dir);
    snprintf (bob_key, sizeof bob_key, "%s/bob.key", dir);
    snprintf (worker_key, sizeof worker_key, "%s/worker.key", dir);
    const char *flags [] = { "--key", broker_key, "--keys", keys,
                             "--set", "share/weights=alice=1,bob=3", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    char records [128];
    snprintf (records, sizeof records, "%s/records", dir);
    //  Every task records its owner (the key it was submitted with) and
    //  when it ran; alice submits first, so arrival order alone would
    //  give her all four procs
    const int counts [2] = { 16, 48 };
    for (int who = 0; who < 2; who++) {
        char script [512];
        snprintf (script, sizeof script,
                  "s=$(date +%%s%%N); sleep 0.3; echo %s $s $(date +%%s%%N) >> %s",
                  clients [who], records);
        for (int index = 0; index < counts [who]; index++) {
            const char *args [] = { DROVER_BIN, "--broker", cluster->endpoint,
                                    "--key", who? bob_key: alice_key, "--server-key", broker_key,
                                    "submit", "--", "sh", "-c", script, NULL };
            char output [64];
            int status = testutil_run_output (args, output, sizeof output, 10000);
            if (!(status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0))
                fail_msg ("submit as %s: status %d: %s", clients [who], status, output);
        }
    }
    const char *worker_flags [] = { "--key", worker_key, "--server-key", broker_key, NULL };
    testutil_cluster_add_worker (cluster, 0, "w1", 2, worker_flags);
    testutil_cluster_add_worker (cluster, 1, "w2", 2, worker_flags);
    //  Wait for all 64 records
    s_record_t all [64];
    size_t count = 0;
    int64_t deadline = zclock_mono () + 60000;
    while (count < 64 && zclock_mono () < deadline) {
        zclock_sleep (100);     //  the tasks write a file: no event says it grew
        FILE *file = fopen (records, "r");
        count = 0;
        while (file && count < 64
           &&  fscanf (file, "%15s %lld %lld", all [count].owner, &all [count].start,
                       &all [count].end) == 3)
            count++;
        if (file)
            fclose (file);
    }
    assert_int_equal (count, 64);
    //  The window while both had work: from the first start to the end of
    //  the owner who finished first
    long long first = all [0].start, last [2] = { 0, 0 };
    for (size_t index = 0; index < count; index++) {
        int who = streq (all [index].owner, "bob");
        if (all [index].start < first)
            first = all [index].start;
        if (all [index].end > last [who])
            last [who] = all [index].end;
    }
    long long until = last [0] < last [1]? last [0]: last [1];
    double held [2] = { 0, 0 };
    for (size_t index = 0; index < count; index++) {
        int who = streq (all [index].owner, "bob");
        long long start = all [index].start, end = all [index].end < until? all [index].end: until;
        if (end > start)
            held [who] += (double) (end - start);
    }
    double alice_share = 100.0 * held [0] / (held [0] + held [1]);
    if (alice_share < 20.0 || alice_share > 30.0)
        fail_msg ("alice held %.1f%% of the procs while both waited, not 25%% +- 5", alice_share);
    testutil_cluster_destroy (&cluster);
    testutil_remove_tree (dir);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_quotas_refused_and_kept),
        cmocka_unit_test (test_fair_split_with_keys),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
