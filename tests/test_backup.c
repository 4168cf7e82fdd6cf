/*  =========================================================================
    test_backup - `drover admin backup FILE` copies a running broker's
    SQLite state while tasks are submitted at full rate; a broker started
    on the copy holds every task acknowledged before the backup started,
    and the copy passes SQLite's integrity check. What it refuses, and
    says: a relative path, a file that exists, a directory it cannot
    write, a second backup while one runs is covered by the store's own
    one-at-a-time rule (410); a level-4 peer goes on being served.

    Real processes over loopback TCP: the broker (durability full), a
    worker agent, the CLI, and the test as a client speaking the codec.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "testutil_keys.h"
#include <sqlite3.h>

//  Tasks submitted before the backup: with their long command lines the
//  state is a few MiB, so the copy takes several steps of 256 pages
#define S_BEFORE    3000

//  A submit whose command is long (about 1 KiB), so each task weighs
static drover_msg_t *
s_heavy_submit (void)
{
    char script [1200] = "true ";
    memset (script + 5, 'x', 1000);
    script [1005] = 0;
    return testutil_submit_msg (script, 5, 1, 0);
}

//  PRAGMA integrity_check on the file at path: asserts "ok"; returns the
//  tasks it holds
static long long
s_check_file (const char *path)
{
    sqlite3 *db = NULL;
    assert_int_equal (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *stmt = NULL;
    assert_int_equal (sqlite3_prepare_v2 (db, "PRAGMA integrity_check", -1, &stmt, NULL),
                      SQLITE_OK);
    assert_int_equal (sqlite3_step (stmt), SQLITE_ROW);
    assert_string_equal ((const char *) sqlite3_column_text (stmt, 0), "ok");
    sqlite3_finalize (stmt);
    assert_int_equal (sqlite3_prepare_v2 (db, "SELECT count(*) FROM tasks", -1, &stmt, NULL),
                      SQLITE_OK);
    assert_int_equal (sqlite3_step (stmt), SQLITE_ROW);
    long long tasks = sqlite3_column_int64 (stmt, 0);
    sqlite3_finalize (stmt);
    sqlite3_close (db);
    return tasks;
}

//  Copy the file at from to to; asserts
static void
s_copy_file (const char *from, const char *to)
{
    FILE *in = fopen (from, "rb");
    FILE *out = fopen (to, "wb");
    assert_non_null (in);
    assert_non_null (out);
    char buffer [65536];
    size_t size;
    while ((size = fread (buffer, 1, sizeof buffer, in)) > 0)
        assert_int_equal (fwrite (buffer, 1, size, out), size);
    fclose (in);
    assert_int_equal (fclose (out), 0);
}

//  The TASK INFO of task from the broker at dealer, or NULL if unknown
static drover_msg_t *
s_show (zsock_t *dealer, uint64_t task)
{
    drover_msg_t *show = drover_msg_new (DROVER_MSG_TASK_SHOW);
    show->task = task;
    drover_msg_t *reply = testutil_request (dealer, &show, 10000);
    assert_non_null (reply);
    if (reply->id != DROVER_MSG_TASK_INFO)
        drover_msg_destroy (&reply);
    return reply;
}

//  Back up while submitting; restore; every acknowledged task is there
static void
test_backup_while_submitting (void **state)
{
    int metrics = testutil_free_port ();
    char address [32];
    snprintf (address, sizeof address, "127.0.0.1:%d", metrics);
    const char *flags [] = { "--metrics", address, NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "w-backup", 2, NULL);
    zsock_t *client = testutil_dealer (cluster);
    assert_int_equal (testutil_metric (metrics, "drover_state_backups_total{outcome=\"ok\"}"), 0);
    assert_int_equal (testutil_metric (metrics, "drover_state_backup_last_success_seconds"), -1);
    int64_t asked = zclock_time () / 1000;
    static uint64_t ids [S_BEFORE + 100000];
    size_t acked = 0;
    for (; acked < S_BEFORE; acked++)
        ids [acked] = testutil_submit (client, s_heavy_submit ());
    size_t before = acked;

    char path [256];
    snprintf (path, sizeof path, "%s/backup.db", cluster->logdir);
    char log [256];
    snprintf (log, sizeof log, "%s/backup-cli.log", cluster->logdir);
    const char *argv [] = { DROVER_BIN, "--broker", cluster->endpoint, "admin", "backup",
                            path, NULL };
    pid_t cli = testutil_spawn (argv, log);
    assert_true (cli > 0);
    //  Submit at full rate while the copy runs
    int status = -1;
    while ((status = testutil_wait_exit (cli, 0)) == -1) {
        assert_true (acked < sizeof ids / sizeof ids [0]);
        ids [acked++] = testutil_submit (client, s_heavy_submit ());
    }
    char *output = testutil_slurp (log);
    if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
        fail_msg ("drover admin backup failed: %s", output);
    assert_non_null (strstr (output, "backed up "));
    assert_non_null (strstr (output, path));
    assert_non_null (strstr (output, "backup: started: to "));     //  its progress
    free (output);
    printf ("backup: tasks before=%zu during=%zu\n", before, acked - before);
    //  Several steps: the broker logged them, or the copy is past 256 pages
    long long tasks = s_check_file (path);
    assert_true (tasks >= (long long) before);
    char *broker_log = testutil_slurp (testutil_cluster_log (cluster, "broker"));
    char *done = strstr (broker_log, "store: backup path=");
    assert_non_null (done);
    char *pages = strstr (done, " pages=");
    assert_non_null (pages);
    assert_true (atol (pages + 7) > 256);
    free (broker_log);
    //  The metrics count it, and say when
    assert_int_equal (testutil_metric (metrics, "drover_state_backups_total{outcome=\"ok\"}"), 1);
    assert_int_equal (testutil_metric (metrics,
                                       "drover_state_backups_total{outcome=\"failed\"}"), 0);
    long long last = testutil_metric (metrics, "drover_state_backup_last_success_seconds");
    assert_true (last >= asked && last <= zclock_time () / 1000 + 1);
    //  Nothing left beside it
    char part [300];
    snprintf (part, sizeof part, "%s.part", path);
    assert_int_equal (access (part, F_OK), -1);

    //  A second broker on a state directory holding the copy
    char restored [256];
    snprintf (restored, sizeof restored, "%s/restored", cluster->logdir);
    assert_int_equal (mkdir (restored, 0700), 0);
    char state_db [300];
    snprintf (state_db, sizeof state_db, "%s/state.db", restored);
    s_copy_file (path, state_db);
    int port = testutil_free_port_pair ();
    char endpoint [64], events [64];
    snprintf (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", port);
    snprintf (events, sizeof events, "tcp://127.0.0.1:%d", port + 1);
    char restored_log [300];
    snprintf (restored_log, sizeof restored_log, "%s/restored.log", cluster->logdir);
    const char *broker [] = { DROVER_BIN, "broker", "--endpoint", endpoint, "--events", events,
                              "--state-dir", restored, NULL };
    pid_t second = testutil_spawn (broker, restored_log);
    assert_true (second > 0);
    zsock_t *other = zsock_new_dealer (endpoint);
    assert_non_null (other);
    for (size_t index = 0; index < before; index++) {
        drover_msg_t *info = s_show (other, ids [index]);
        if (!info)
            fail_msg ("task %" PRIu64 " acknowledged before the backup is not in it",
                      ids [index]);
        drover_msg_destroy (&info);
    }
    //  Ids go on past every one the copy holds
    uint64_t next = testutil_submit (other, testutil_submit_msg ("true", 0, 1, 0));
    assert_true (next > ids [before - 1]);
    zsock_destroy (&other);
    testutil_stop (second, 10000);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

//  What it refuses, in words; a level-4 peer is served as before
static void
test_refusals (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    const char *relative [] = { "admin", "backup", "backup.db", NULL };
    testutil_cli (cluster->endpoint, relative, run);
    testutil_cli_expect (run, 2, run->err, "is not an absolute path");

    char path [256];
    snprintf (path, sizeof path, "%s/exists.db", cluster->logdir);
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    fclose (file);
    const char *exists [] = { "admin", "backup", path, NULL };
    testutil_cli (cluster->endpoint, exists, run);
    testutil_cli_expect (run, 1, run->err, "exists: the broker does not overwrite");

    char missing [256];
    snprintf (missing, sizeof missing, "%s/no/such/dir/x.db", cluster->logdir);
    const char *nodir [] = { "admin", "backup", missing, NULL };
    testutil_cli (cluster->endpoint, nodir, run);
    testutil_cli_expect (run, 1, run->err, "cannot write");
    testutil_cli_expect (run, 1, run->err, "No such file or directory");

    //  A directory nobody may write, root included: /proc
    const char *unwritable [] = { "admin", "backup", "/proc/drover-backup.db", NULL };
    testutil_cli (cluster->endpoint, unwritable, run);
    testutil_cli_expect (run, 1, run->err, "backup: cannot write /proc/drover-backup.db");

    //  --json on success
    snprintf (path, sizeof path, "%s/ok.db", cluster->logdir);
    const char *json [] = { "admin", "backup", path, "--json", NULL };
    testutil_cli (cluster->endpoint, json, run);
    testutil_cli_expect (run, 0, run->out, "\"pages\":");
    testutil_assert_json (run->out);
    assert_true (s_check_file (path) == 0);

    //  A level-4 peer: says level 4, is welcomed, and its requests are
    //  answered in level-4 shapes as before
    zsock_t *dealer = zsock_new_dealer (cluster->endpoint);
    drover_msg_t *hello = drover_msg_new (DROVER_MSG_CLIENT_HELLO);
    hello->level = 4;
    strcpy (hello->release, "0.4.0");
    drover_msg_t *welcome = testutil_request (dealer, &hello, 10000);
    assert_non_null (welcome);
    assert_int_equal (welcome->id, DROVER_MSG_CLIENT_WELCOME);
    assert_int_equal (welcome->level, DROVER_MSG_LEVEL);
    drover_msg_destroy (&welcome);
    uint64_t task = testutil_submit (dealer, testutil_submit_msg ("true", 0, 1, 0));
    assert_true (task > 0);
    drover_msg_t *list = drover_msg_new (DROVER_MSG_SHARE_LIST);
    drover_msg_t *table = testutil_request (dealer, &list, 10000);
    assert_non_null (table);
    assert_int_equal (table->id, DROVER_MSG_SHARE_TABLE);
    drover_msg_destroy (&table);
    zsock_destroy (&dealer);
    free (run);
    testutil_cluster_destroy (&cluster);
}

//  durability off: nothing to back up, said so
static void
test_durability_off (void **state)
{
    const char *flags [] = { "--durability", "off", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    char path [256];
    snprintf (path, sizeof path, "%s/off.db", cluster->logdir);
    const char *args [] = { "admin", "backup", path, NULL };
    testutil_cli (cluster->endpoint, args, run);
    testutil_cli_expect (run, 1, run->err, "the broker keeps no state (durability off)");
    assert_int_equal (access (path, F_OK), -1);
    free (run);
    testutil_cluster_destroy (&cluster);
}

//  Under CURVE only a key in admins/ may back up: a client's key is
//  refused (403) and nothing is written; an admin's backup is made
static void
test_only_admins (void **state)
{
    char dir [64], path [200], from [200];
    snprintf (dir, sizeof dir, "/tmp/drover-backup-%d", (int) getpid ());
    testutil_remove_tree (dir);
    testutil_keygen (dir, "broker");
    testutil_keygen (dir, "alice");
    testutil_keygen (dir, "root");
    const char *roles [] = { "keys", "keys/workers", "keys/clients", "keys/admins" };
    for (int index = 0; index < 4; index++) {
        snprintf (path, sizeof path, "%s/%s", dir, roles [index]);
        assert_int_equal (mkdir (path, 0755), 0);
    }
    const char *who [] = { "alice", "clients", "root", "admins" };
    for (int index = 0; index < 4; index += 2) {
        snprintf (from, sizeof from, "%s/%s.key", dir, who [index]);
        snprintf (path, sizeof path, "%s/keys/%s/%s.key", dir, who [index + 1], who [index]);
        assert_int_equal (link (from, path), 0);
    }
    char broker_key [96], keys [96], alice_key [96], root_key [96];
    snprintf (broker_key, sizeof broker_key, "%s/broker.key", dir);
    snprintf (keys, sizeof keys, "%s/keys", dir);
    snprintf (alice_key, sizeof alice_key, "%s/alice.key", dir);
    snprintf (root_key, sizeof root_key, "%s/root.key", dir);
    const char *flags [] = { "--key", broker_key, "--keys", keys, NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    char backup [256];
    snprintf (backup, sizeof backup, "%s/curve.db", cluster->logdir);
    const char *keyed [2] = { alice_key, root_key };
    for (int index = 0; index < 2; index++) {
        const char *args [] = { DROVER_BIN, "--broker", cluster->endpoint,
                                "--key", keyed [index], "--server-key", broker_key,
                                "admin", "backup", backup, NULL };
        char output [4096], errors [4096];
        int status = testutil_run_cli (args, output, sizeof output, errors, sizeof errors,
                                       30000);
        assert_true (status != -1 && WIFEXITED (status));
        if (index == 0) {
            if (WEXITSTATUS (status) == 0 || !strstr (errors, "forbidden (403)"))
                fail_msg ("a client's key backed up, or without 403: %s%s", output, errors);
            assert_int_equal (access (backup, F_OK), -1);
        }
        else {
            if (WEXITSTATUS (status) != 0 || !strstr (output, "backed up "))
                fail_msg ("an admin's key could not back up: %s%s", output, errors);
            assert_int_equal (access (backup, F_OK), 0);
        }
    }
    testutil_cluster_destroy (&cluster);
    testutil_remove_tree (dir);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_backup_while_submitting),
        cmocka_unit_test (test_refusals),
        cmocka_unit_test (test_durability_off),
        cmocka_unit_test (test_only_admins),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
