/*  =========================================================================
    test_upgrade - the previous release's cluster upgraded to this one, as
    docs/upgrading.md says: its broker stopped cleanly (SIGTERM) while its
    agents run long tasks, this release's broker started on the same state
    and endpoint; the old agents re-register, every running attempt is
    adopted, every task ends once, and the old clients keep working; then
    the agents, drained one at a time and started as this release's. The
    same with several brokers (etcd, PostgreSQL): the standby upgraded
    first, then the old leader SIGTERMed. And a broker refuses a state
    newer than itself (SQLite; PostgreSQL in test_upgrade_postgres).

    The previous release is the last line of RELEASES whose version is
    not this tree's; its `drover` is built once from its recorded commit
    into previous/ of the build tree (tools/release/build-release.sh, a
    minute or more the first time). A tree without its history (a
    tarball, or a shallow clone) cannot build it: the test then says why
    and is skipped (77).

    Real processes over loopback TCP: the old and the new broker, the old
    worker agents running real child processes, the old CLI, and the test
    as a client speaking this release's codec, so every TASK DONE is
    counted at the wire. Each attempt of a task leaves a marker file
    (run.TASK.ATTEMPT.PID), so a second run is seen on disk.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_signals.h"
#include "testutil_cluster.h"
#include "testutil_statedir.h"
#include "testutil_servers.h"
#include "testutil_pgfresh.h"
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>

#define S_SKIP          77      //  ctest's SKIP_RETURN_CODE for this test
#define S_NO_HISTORY    3       //  build-release.sh: no git repository

//  The previous release's drover, built by main, and what its --version says
static char s_previous [PATH_MAX];
static char s_previous_version [32];    //  e.g. "0.5.0"
static int s_previous_level;            //  its protocol level

//  One site: a state directory, an endpoint, a broker and its agents
typedef struct {
    char dir [64];              //  the test's directory: logs, state, markers
    char state [96];            //  the broker's state directory
    char endpoint [64];         //  tcp://127.0.0.1:port
    char events [64];           //  its events, on the next port
    char brokers [160];         //  what the CLI and agents are given: endpoint, or a list
    pid_t broker;               //  the broker running now, or 0
    pid_t workers [2];          //  the old agents
} s_site_t;

//  A fresh site on a free port pair; nothing started
static s_site_t *
s_site_new (void)
{
    s_site_t *self = (s_site_t *) zmalloc (sizeof (s_site_t));
    snprintf (self->dir, sizeof self->dir, "/tmp/drover-upgrade-XXXXXX");
    assert_non_null (mkdtemp (self->dir));
    snprintf (self->state, sizeof self->state, "%s/state", self->dir);
    int port = testutil_free_port_pair ();
    snprintf (self->endpoint, sizeof self->endpoint, "tcp://127.0.0.1:%d", port);
    snprintf (self->events, sizeof self->events, "tcp://127.0.0.1:%d", port + 1);
    snprintf (self->brokers, sizeof self->brokers, "%s", self->endpoint);
    return self;
}

//  Path of a file in the site's directory (static buffer)
static const char *
s_path (s_site_t *self, const char *name)
{
    static char path [PATH_MAX];
    snprintf (path, sizeof path, "%s/%s", self->dir, name);
    return path;
}

//  Start binary's broker on the site's state and endpoint, logging to
//  LOG.log; asserts it says it is ready within 15 s
static void
s_broker_start (s_site_t *self, const char *binary, const char *log)
{
    char name [64];
    snprintf (name, sizeof name, "%s.log", log);
    char log_path [PATH_MAX];
    snprintf (log_path, sizeof log_path, "%s", s_path (self, name));
    const char *argv [] = { binary, "broker", "--endpoint", self->endpoint,
                            "--events", self->events, "--state-dir", self->state, NULL };
    self->broker = testutil_spawn (argv, log_path);
    assert_true (self->broker > 0);
    if (!testutil_await_line (log_path, "broker: ready", 15000)) {
        char *text = testutil_slurp (log_path);
        fail_msg ("%s broker did not get ready within 15 s:\n%s", binary, text? text: "");
    }
}

//  Stop the site's broker with SIGTERM and assert it stops cleanly (exit 0)
static void
s_broker_stop (s_site_t *self)
{
    assert_true (self->broker > 0);
    kill (self->broker, SIGTERM);
    int status = testutil_wait_exit (self->broker, 15000);
    if (status == -1)
        testutil_stop (self->broker, 100);
    assert_true (status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0);
    self->broker = 0;
}

//  Stop everything still running and remove the site's directory
static void
s_site_destroy (s_site_t **self_p)
{
    s_site_t *self = *self_p;
    for (int slot = 0; slot < 2; slot++)
        if (self->workers [slot] > 0)
            testutil_stop (self->workers [slot], 5000);
    if (self->broker > 0)
        s_broker_stop (self);
    testutil_remove_tree (self->dir);
    free (self);
    *self_p = NULL;
}

//  A client DEALER of this release's codec on the site's broker, which may
//  be the previous release's: the broker answers CLIENT HELLO with the
//  lower of the two levels
static zsock_t *
s_client (s_site_t *self)
{
    zsock_t *dealer = zsock_new_dealer (self->endpoint);
    assert_non_null (dealer);
    drover_msg_t *hello = drover_msg_new (DROVER_MSG_CLIENT_HELLO);
    hello->seq = 0xfffffff0;
    testutil_send (dealer, &hello);
    drover_msg_t *welcome = testutil_recv_msg (dealer, 10000);
    assert_non_null (welcome);
    assert_int_equal (welcome->id, DROVER_MSG_CLIENT_WELCOME);
    assert_true (welcome->level >= 4 && welcome->level <= DROVER_MSG_LEVEL);
    drover_msg_destroy (&welcome);
    return dealer;
}

//  Run `binary --broker ENDPOINT ARGS...` (NULL-terminated) into run
static void
s_cli (s_site_t *self, const char *binary, const char *const args [], testutil_cli_t *run)
{
    const char *argv [32] = { binary, "--broker", self->brokers };
    int argc = 3;
    for (int index = 0; args [index] && argc < 31; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    int status = testutil_run_cli (argv, run->out, sizeof run->out, run->err, sizeof run->err,
                                   30000);
    run->status = status == -1? -1: WIFEXITED (status)? WEXITSTATUS (status)
                                   : 128 + WTERMSIG (status);
}

//  Submit `sh -c script` with the previous release's `drover submit`;
//  returns the id it printed
static uint64_t
s_old_submit (s_site_t *self, const char *script)
{
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    const char *args [] = { "submit", "--", "sh", "-c", script, NULL };
    s_cli (self, s_previous, args, run);
    if (run->status != 0)
        fail_msg ("old drover submit: status %d\n%s%s", run->status, run->out, run->err);
    char *end = NULL;
    uint64_t id = strtoull (run->out, &end, 10);
    assert_true (id > 0 && end && *end == '\n');
    free (run);
    return id;
}

//  How many marker files task's attempts left (run.TASK.*), and how many
//  of those were of attempt 1
static int
s_markers (s_site_t *self, uint64_t task, int *first)
{
    char prefix [64];
    snprintf (prefix, sizeof prefix, "run.%" PRIu64 ".", task);
    char attempt_1 [64];
    snprintf (attempt_1, sizeof attempt_1, "run.%" PRIu64 ".1.", task);
    DIR *dir = opendir (self->dir);
    assert_non_null (dir);
    int count = 0;
    *first = 0;
    struct dirent *entry;
    while ((entry = readdir (dir))) {
        if (strncmp (entry->d_name, prefix, strlen (prefix)) == 0)
            count++;
        if (strncmp (entry->d_name, attempt_1, strlen (attempt_1)) == 0)
            (*first)++;
    }
    closedir (dir);
    return count;
}

//  Wait up to timeout msec until task has left a marker
static bool
s_await_marker (s_site_t *self, uint64_t task, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    int first;
    while (s_markers (self, task, &first) == 0) {
        if (zclock_mono () > deadline)
            return false;
        zclock_sleep (20);      //  paces reading the directory; the deadline bounds the wait
    }
    return true;
}

//  Count the times needle occurs in text
static int
s_count (const char *text, const char *needle)
{
    int count = 0;
    for (const char *at = strstr (text, needle); at; at = strstr (at + 1, needle))
        count++;
    return count;
}

//  A worker row whose procs in use are *arg (uint32_t)
static bool
s_procs_used (const drover_worker_row_t *row, void *arg)
{
    return row->procs_used == *(uint32_t *) arg;
}

//  The upgrade, as docs/upgrading.md has it, under running tasks: the old
//  broker SIGTERMed while the old agents run 6 long tasks (4 short ones
//  done before), the new broker started on its state and endpoint. The
//  agents re-register listing their attempts, which are adopted: each
//  task's one TASK DONE arrives at the wire, SUCCEEDED, attempt 1; each
//  ran once (one marker); `drover show` lists one attempt. The old
//  clients then submit, wait and list against the new broker, and the
//  agents are upgraded one at a time (drain --exit, start, resume).
static void
test_broker_upgraded_under_running_tasks (void **state)
{
    s_site_t *site = s_site_new ();
    s_broker_start (site, s_previous, "old-broker");
    const char *names [] = { "w-a", "w-b" };
    for (int slot = 0; slot < 2; slot++) {
        const char *argv [] = { s_previous, "worker", "--broker", site->endpoint,
                                "--id", names [slot], "--procs", "3", NULL };
        char log [32];
        snprintf (log, sizeof log, "%s.log", names [slot]);
        site->workers [slot] = testutil_spawn (argv, s_path (site, log));
        assert_true (site->workers [slot] > 0);
    }
    zsock_t *client = s_client (site);
    assert_true (testutil_wait_workers (client, 2, 15000));

    //  The old client submits: short tasks, then long ones that run until
    //  the test says go (a file), each attempt leaving its marker
    enum { S_SHORT = 4, S_LONG = 6, S_TASKS = S_SHORT + S_LONG };
    uint64_t ids [S_TASKS];
    char script [PATH_MAX * 2];
    for (int index = 0; index < S_TASKS; index++) {
        if (index < S_SHORT)
            snprintf (script, sizeof script,
                      "echo $$ > %s/run.$DROVER_TASK_ID.$DROVER_ATTEMPT.$$;"
                      " echo short $DROVER_TASK_ID $DROVER_ATTEMPT", site->dir);
        else
            snprintf (script, sizeof script,
                      "echo $$ > %s/run.$DROVER_TASK_ID.$DROVER_ATTEMPT.$$; i=0;"
                      " while [ ! -e %s/go ] && [ $i -lt 1200 ]; do sleep 0.05;"
                      " i=$((i + 1)); done; echo long $DROVER_TASK_ID $DROVER_ATTEMPT",
                      site->dir, site->dir);
        ids [index] = s_old_submit (site, script);
    }
    //  The short ones end on the old broker (its old client waits for
    //  them), the long ones run on the old agents
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    for (int index = 0; index < S_SHORT; index++) {
        char id [32];
        snprintf (id, sizeof id, "%" PRIu64, ids [index]);
        const char *args [] = { "wait", id, NULL };
        s_cli (site, s_previous, args, run);
        testutil_cli_expect (run, 0, run->out, "1 succeeded");
    }
    char worker [DROVER_ID_MAX + 1];
    for (int index = S_SHORT; index < S_TASKS; index++) {
        assert_true (testutil_wait_running (client, ids [index], worker, 15000));
        assert_true (s_await_marker (site, ids [index], 15000));
    }
    zsock_destroy (&client);
    //  This release's CLI asks the old broker for what it cannot do: a
    //  backup before level 5 is refused at once, saying why, not left
    //  waiting; from level 5 on it is made
    char backup [PATH_MAX];
    snprintf (backup, sizeof backup, "%s/backup.db", site->dir);
    const char *backup_args [] = { "admin", "backup", backup, NULL };
    s_cli (site, DROVER_BIN, backup_args, run);
    if (s_previous_level < 5) {
        testutil_cli_expect (run, 1, run->err, "backup needs level 5");
        assert_int_equal (access (backup, F_OK), -1);
    }
    else {
        testutil_cli_expect (run, 0, run->out, backup);
        assert_int_equal (access (backup, F_OK), 0);
    }
    //  A worker's heartbeat and lost-after came with level 6: from an
    //  older broker this release's CLI shows them as unknown
    const char *show_args [] = { "show", "worker", names [0], NULL };
    s_cli (site, DROVER_BIN, show_args, run);
    testutil_cli_expect (run, 0, run->out,
                         s_previous_level < 6? "heartbeat:    -": "heartbeat:    1000 ms");

    //  The upgrade: a clean stop, the new broker on the same state
    s_broker_stop (site);
    int64_t started = zclock_mono ();
    s_broker_start (site, DROVER_BIN, "new-broker");
    client = s_client (site);
    for (int slot = 0; slot < 2; slot++)
        assert_true (testutil_await_worker_state (client, names [slot], DROVER_WORKER_UP,
                                                  15000));
    //  Adopted: each agent listed its 3 attempts when it registered again
    //  and they hold its procs (an attempt nobody lists would be queued
    //  again after restart-grace, and a second run leave a marker)
    uint32_t used = 3;
    for (int slot = 0; slot < 2; slot++)
        assert_true (testutil_wait_worker_row (client, names [slot], s_procs_used, &used,
                                               15000));
    for (int index = S_SHORT; index < S_TASKS; index++)
        assert_true (testutil_wait_running (client, ids [index], worker, 15000));
    print_message ("upgrade: the new broker adopted %d running attempts %" PRId64
                   " msec after it started\n", S_LONG, zclock_mono () - started);
    drover_msg_t *wait = testutil_wait_msg (ids, S_TASKS);
    drover_msg_t *ok = testutil_request (client, &wait, 10000);
    assert_non_null (ok);
    assert_int_equal (ok->code, 200);
    drover_msg_destroy (&ok);
    FILE *go = fopen (s_path (site, "go"), "w");
    assert_non_null (go);
    fclose (go);

    //  Every task ends once, at the wire, SUCCEEDED in its first attempt
    drover_msg_t *done [S_TASKS] = { NULL };
    assert_true (testutil_collect (client, ids, done, S_TASKS, 60000));
    for (int index = 0; index < S_TASKS; index++) {
        assert_int_equal (done [index]->state, DROVER_TASK_SUCCEEDED);
        assert_int_equal (done [index]->attempt, 1);
        char said [64];
        snprintf (said, sizeof said, "%s %" PRIu64 " 1\n", index < S_SHORT? "short": "long",
                  ids [index]);
        assert_int_equal (done [index]->out_size, strlen (said));
        assert_memory_equal (done [index]->out, said, strlen (said));
        drover_msg_destroy (&done [index]);
    }
    assert_null (testutil_recv_msg (client, 300));

    //  Each ran once: one marker, of attempt 1; one attempt in show
    for (int index = 0; index < S_TASKS; index++) {
        int first = 0;
        assert_int_equal (s_markers (site, ids [index], &first), 1);
        assert_int_equal (first, 1);
        char id [32];
        snprintf (id, sizeof id, "%" PRIu64, ids [index]);
        const char *args [] = { "show", "--json", id, NULL };
        s_cli (site, DROVER_BIN, args, run);
        testutil_cli_expect (run, 0, run->out, "\"state\":\"succeeded\"");
        testutil_assert_json (run->out);
        assert_int_equal (s_count (run->out, "\"attempt\":1,\"attempts_dropped\":0"), 1);
        assert_int_equal (s_count (run->out, "{\"attempt\":"), 1);
        assert_int_equal (s_count (run->out, "\"requeued\":true"), 0);
        assert_non_null (strstr (run->out, "\"lost\":0"));
    }

    //  The old clients against the new broker: submit --wait (run by an
    //  old agent), wait, tasks, workers, show
    const char *submit [] = { "submit", "--wait", "--", "sh", "-c",
                              "echo after $DROVER_ATTEMPT", NULL };
    s_cli (site, s_previous, submit, run);
    testutil_cli_expect (run, 0, run->out, "after 1\n");
    char id [32];
    snprintf (id, sizeof id, "%" PRIu64, ids [S_TASKS - 1]);
    const char *old_wait [] = { "wait", id, NULL };
    s_cli (site, s_previous, old_wait, run);
    testutil_cli_expect (run, 0, run->out, "1 succeeded");
    const char *old_show [] = { "show", id, NULL };
    s_cli (site, s_previous, old_show, run);
    testutil_cli_expect (run, 0, run->out, "SUCCEEDED");
    const char *old_tasks [] = { "tasks", NULL };
    s_cli (site, s_previous, old_tasks, run);
    testutil_cli_expect (run, 0, run->out, "succeeded");
    const char *old_workers [] = { "workers", NULL };
    s_cli (site, s_previous, old_workers, run);
    testutil_cli_expect (run, 0, run->out, "w-a");
    testutil_cli_expect (run, 0, run->out, "w-b");
    //  This release's client sees the old agents as what they are
    const char *new_workers [] = { "workers", "--json", NULL };
    s_cli (site, DROVER_BIN, new_workers, run);
    testutil_cli_expect (run, 0, run->out, s_previous_version);

    //  Then the agents, one at a time: drained (--exit: the old agent
    //  leaves once idle), started as this release's, resumed (the drain
    //  is kept by worker id across its restart)
    for (int slot = 0; slot < 2; slot++) {
        const char *drain [] = { "drain", names [slot], "--exit", NULL };
        s_cli (site, DROVER_BIN, drain, run);
        testutil_cli_expect (run, 0, run->out, "");
        int status = testutil_wait_exit (site->workers [slot], 15000);
        assert_true (status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0);
        uint64_t since = testutil_worker_since (client, names [slot]);
        const char *argv [] = { DROVER_BIN, "worker", "--broker", site->endpoint,
                                "--id", names [slot], "--procs", "3", NULL };
        char log [32];
        snprintf (log, sizeof log, "%s-new.log", names [slot]);
        site->workers [slot] = testutil_spawn (argv, s_path (site, log));
        assert_true (site->workers [slot] > 0);
        assert_true (testutil_await_worker_up_since (client, names [slot], since, 15000));
        const char *resume [] = { "resume", names [slot], NULL };
        s_cli (site, DROVER_BIN, resume, run);
        testutil_cli_expect (run, 0, run->out, "");
    }
    //  The old client's task runs on this release's agents
    s_cli (site, s_previous, submit, run);
    testutil_cli_expect (run, 0, run->out, "after 1\n");
    free (run);
    zsock_destroy (&client);
    s_site_destroy (&site);
}

//  Start binary's broker NAME of several (etcd, PostgreSQL at uri) on
//  endpoint, logging to LOG.log; returns its pid once it says it stands
//  by (campaigning)
static pid_t
s_ha_broker_start (s_site_t *site, const char *binary, const char *name, const char *endpoint,
                   const char *events, const char *etcd, const char *uri, const char *log)
{
    char log_name [64];
    snprintf (log_name, sizeof log_name, "%s.log", log);
    char log_path [PATH_MAX];
    snprintf (log_path, sizeof log_path, "%s", s_path (site, log_name));
    const char *argv [] = { binary, "broker", "--endpoint", endpoint, "--events", events,
                            "--state", uri, "--etcd", etcd, "--name", name,
                            "--lease-ttl", "2000", NULL };
    pid_t pid = testutil_spawn (argv, log_path);
    assert_true (pid > 0);
    if (!testutil_await_line (log_path, "ha: standing by", 15000)) {
        char *text = testutil_slurp (log_path);
        fail_msg ("%s broker %s did not start within 15 s:\n%s", binary, name, text? text: "");
    }
    return pid;
}

//  Wait up to timeout msec until the broker at endpoint serves (answers a
//  TASK LIST itself, not with a redirect)
static bool
s_await_serving (const char *endpoint, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    do {
        zsock_t *dealer = zsock_new_dealer (endpoint);
        assert_non_null (dealer);
        drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
        request->seq = 7;
        drover_msg_t *reply = testutil_request (dealer, &request, 500);
        bool serves = reply && reply->id == DROVER_MSG_TASK_TABLE;
        drover_msg_destroy (&reply);
        zsock_destroy (&dealer);
        if (serves)
            return true;
    } while (zclock_mono () < deadline);
    return false;
}

//  Several brokers, as docs/upgrading.md has it: the old leader b1 serves
//  with this release's b2 standing by (the standby upgraded first); old
//  agents run long tasks; b1 is SIGTERMed and b2 leads at once (b1
//  revoked its lease), loading the state from PostgreSQL: the agents move
//  to it and their attempts are adopted, each task ends once at the wire.
//  Then b1 comes back as this release and stands by; the old client,
//  given both, is redirected to b2.
static void
test_brokers_upgraded_standby_first (void **state)
{
    testutil_etcd_t *etcd = testutil_etcd_start ();
    static testutil_pgfresh_t postgres;
    testutil_pgfresh_start (&postgres, "test_upgrade", "upg");
    testutil_pgfresh_database (&postgres);
    s_site_t *site = s_site_new ();
    int port = testutil_free_port_pair ();
    char endpoint_2 [64], events_2 [64];
    snprintf (endpoint_2, sizeof endpoint_2, "tcp://127.0.0.1:%d", port);
    snprintf (events_2, sizeof events_2, "tcp://127.0.0.1:%d", port + 1);
    snprintf (site->brokers, sizeof site->brokers, "%s,%s", site->endpoint, endpoint_2);

    site->broker = s_ha_broker_start (site, s_previous, "b1", site->endpoint, site->events,
                                      etcd->url, postgres.db_uri, "b1-old");
    assert_true (testutil_await_line (s_path (site, "b1-old.log"), "ha: elected", 15000));
    assert_true (s_await_serving (site->endpoint, 15000));
    pid_t broker_2 = s_ha_broker_start (site, DROVER_BIN, "b2", endpoint_2, events_2,
                                        etcd->url, postgres.db_uri, "b2-new");
    const char *names [] = { "w-a", "w-b" };
    for (int slot = 0; slot < 2; slot++) {
        const char *argv [] = { s_previous, "worker", "--broker", site->brokers,
                                "--id", names [slot], "--procs", "2", NULL };
        char log [32];
        snprintf (log, sizeof log, "%s.log", names [slot]);
        site->workers [slot] = testutil_spawn (argv, s_path (site, log));
        assert_true (site->workers [slot] > 0);
    }
    zsock_t *client = s_client (site);
    assert_true (testutil_wait_workers (client, 2, 15000));
    enum { S_TASKS = 4 };
    uint64_t ids [S_TASKS];
    char script [PATH_MAX * 2];
    snprintf (script, sizeof script,
              "echo $$ > %s/run.$DROVER_TASK_ID.$DROVER_ATTEMPT.$$; i=0;"
              " while [ ! -e %s/go ] && [ $i -lt 1200 ]; do sleep 0.05;"
              " i=$((i + 1)); done; echo long $DROVER_TASK_ID $DROVER_ATTEMPT",
              site->dir, site->dir);
    char worker [DROVER_ID_MAX + 1];
    for (int index = 0; index < S_TASKS; index++)
        ids [index] = s_old_submit (site, script);
    for (int index = 0; index < S_TASKS; index++) {
        assert_true (testutil_wait_running (client, ids [index], worker, 15000));
        assert_true (s_await_marker (site, ids [index], 15000));
    }
    zsock_destroy (&client);

    //  The hand-over: SIGTERM to the old leader, the new standby leads
    int64_t stopped = zclock_mono ();
    s_broker_stop (site);
    assert_true (testutil_await_line (s_path (site, "b2-new.log"), "ha: elected", 10000));
    assert_true (s_await_serving (endpoint_2, 15000));
    print_message ("upgrade: b2 (this release) served %" PRId64 " msec after b1 (%s)"
                   " was stopped\n", zclock_mono () - stopped, s_previous_version);
    client = zsock_new_dealer (endpoint_2);
    assert_non_null (client);
    testutil_say_level (client, 10000);
    uint32_t used = 2;
    for (int slot = 0; slot < 2; slot++)
        assert_true (testutil_wait_worker_row (client, names [slot], s_procs_used, &used,
                                               15000));
    drover_msg_t *wait = testutil_wait_msg (ids, S_TASKS);
    drover_msg_t *ok = testutil_request (client, &wait, 10000);
    assert_non_null (ok);
    assert_int_equal (ok->code, 200);
    drover_msg_destroy (&ok);
    FILE *go = fopen (s_path (site, "go"), "w");
    assert_non_null (go);
    fclose (go);
    drover_msg_t *done [S_TASKS] = { NULL };
    assert_true (testutil_collect (client, ids, done, S_TASKS, 60000));
    for (int index = 0; index < S_TASKS; index++) {
        assert_int_equal (done [index]->state, DROVER_TASK_SUCCEEDED);
        assert_int_equal (done [index]->attempt, 1);
        drover_msg_destroy (&done [index]);
        int first = 0;
        assert_int_equal (s_markers (site, ids [index], &first), 1);
        assert_int_equal (first, 1);
    }
    assert_null (testutil_recv_msg (client, 300));

    //  The old leader, upgraded, stands by; the old client is redirected
    site->broker = s_ha_broker_start (site, DROVER_BIN, "b1", site->endpoint, site->events,
                                      etcd->url, postgres.db_uri, "b1-new");
    assert_true (testutil_await_line (s_path (site, "b1-new.log"), "ha: following", 10000));
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    const char *submit [] = { "submit", "--wait", "--", "sh", "-c",
                              "echo after $DROVER_ATTEMPT", NULL };
    s_cli (site, s_previous, submit, run);
    testutil_cli_expect (run, 0, run->out, "after 1\n");
    free (run);
    zsock_destroy (&client);

    for (int slot = 0; slot < 2; slot++) {
        testutil_stop (site->workers [slot], 5000);
        site->workers [slot] = 0;
    }
    s_broker_stop (site);
    site->broker = broker_2;
    s_broker_stop (site);
    s_site_destroy (&site);
    testutil_etcd_stop (&etcd, false);
    postgres.passed++;
    testutil_pgfresh_stop (&postgres);
}

//  A state a newer broker wrote (its format past this one's) is refused
//  at start with an error naming both formats and saying to upgrade; the
//  file is left as it was. The previous release refuses it too: a
//  rollback needs the backup taken before the upgrade.
static void
test_newer_sqlite_state_refused (void **state)
{
    s_site_t *site = s_site_new ();
    s_broker_start (site, DROVER_BIN, "made");
    s_broker_stop (site);
    char file [PATH_MAX];
    snprintf (file, sizeof file, "%s/state.db", site->state);
    char *ours = testutil_statedir_format (file);
    assert_non_null (ours);
    assert_true (strncmp (ours, "drover-state ", 13) == 0);
    char newer [64];
    snprintf (newer, sizeof newer, "drover-state %d", atoi (ours + 13) + 1);
    char sql [160];
    snprintf (sql, sizeof sql, "UPDATE meta SET value = '%s' WHERE name = 'format'", newer);
    testutil_statedir_sql_file (file, sql);

    const char *binaries [] = { DROVER_BIN, s_previous };
    for (int index = 0; index < 2; index++) {
        char log [PATH_MAX];
        snprintf (log, sizeof log, "%s", s_path (site, index? "old.log": "new.log"));
        const char *argv [] = { binaries [index], "broker", "--endpoint", site->endpoint,
                                "--events", site->events, "--state-dir", site->state, NULL };
        pid_t pid = testutil_spawn (argv, log);
        assert_true (pid > 0);
        int status = testutil_wait_exit (pid, 15000);
        if (status == -1)
            testutil_stop (pid, 100);
        char *text = testutil_slurp (log);
        assert_non_null (text);
        if (status == -1 || !WIFEXITED (status) || WEXITSTATUS (status) != 1
        ||  !strstr (text, file) || !strstr (text, newer) || strstr (text, "broker: ready"))
            fail_msg ("%s broker on a state of format '%s': status %d, log:\n%s",
                      binaries [index], newer, status, text);
        if (index == 0) {       //  ours names both and says what to do
            assert_non_null (strstr (text, ours));
            assert_non_null (strstr (text, "newer than this broker's"));
            assert_non_null (strstr (text, "upgrade the broker"));
        }
        free (text);
        //  The file is left as it was
        char *format = testutil_statedir_format (file);
        assert_string_equal (format, newer);
        free (format);
    }
    free (ours);
    s_site_destroy (&site);
}

//  Build the previous release's drover (once: build-release.sh keeps it);
//  returns 0, S_SKIP if there is no history to build it from, or 1
static int
s_build_previous (void)
{
    snprintf (s_previous, sizeof s_previous, "%s/drover", DROVER_PREVIOUS_DIR);
    if (!getenv ("DROVER_VERSION"))
        setenv ("DROVER_VERSION", DROVER_PROJECT_VERSION, 1);
    const char *argv [] = { "/bin/sh", DROVER_RELEASE_SCRIPT, "previous", DROVER_PREVIOUS_DIR, NULL };
    static char output [65536];
    int64_t started = zclock_mono ();
    int status = testutil_run_output (argv, output, sizeof output, 850000);
    fprintf (stderr, "%s", output);
    if (status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == S_NO_HISTORY) {
        fprintf (stderr, "\n**********************************************************\n"
                         "test_upgrade: SKIPPED: the source tree has no git history\n"
                         "(a tarball, or a shallow clone), so the previous release\n"
                         "(RELEASES) cannot be built and the upgrade is NOT tested.\n"
                         "Run it in a full clone of the repository.\n"
                         "**********************************************************\n\n");
        return S_SKIP;
    }
    if (status == -1 || !WIFEXITED (status) || WEXITSTATUS (status) != 0) {
        fprintf (stderr, "test_upgrade: could not build the previous release (status %d):"
                         " see the lines above\n", status);
        return 1;
    }
    if (access (s_previous, X_OK) != 0) {
        fprintf (stderr, "test_upgrade: %s is missing after its build\n", s_previous);
        return 1;
    }
    const char *version [] = { s_previous, "--version", NULL };
    status = testutil_run_output (version, output, sizeof output, 10000);
    if (status == -1 || !WIFEXITED (status) || WEXITSTATUS (status) != 0
    ||  sscanf (output, "drover %31s (protocol level %d)", s_previous_version,
                &s_previous_level) != 2) {
        fprintf (stderr, "test_upgrade: %s --version said \"%s\"\n", s_previous, output);
        return 1;
    }
    fprintf (stderr, "test_upgrade: previous release %s (level %d) ready in %" PRId64
             " msec: %s\n", s_previous_version, s_previous_level,
             zclock_mono () - started, s_previous);
    return 0;
}

int
main (void)
{
    int built = s_build_previous ();
    if (built)
        return built;
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_broker_upgraded_under_running_tasks),
        cmocka_unit_test (test_brokers_upgraded_standby_first),
        cmocka_unit_test (test_newer_sqlite_state_refused),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
