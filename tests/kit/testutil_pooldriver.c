/*  =========================================================================
    testutil_pooldriver - a broker with a command-driven pool (see the header)

    The driver, tests/pool/test-driver.sh, keeps its state in the
    directory DROVER_TEST_DIR names: each call appended to calls.time
    after its time, each instance's worker's pid in instances/NAME.pid,
    and the cues a test writes (OP.cue) telling it how to end a call.
    =========================================================================
*/

#include "testutil_pooldriver.h"
#include "testutil_proc.h"
#include "testutil_wire.h"
#include <dirent.h>
#include <signal.h>

#define S_SCRIPT    DROVER_SOURCE_DIR "/tests/pool/test-driver.sh"

//  Start a broker whose pool has one type and the settings given
testutil_pooldriver_t *
testutil_pooldriver_new (const char *name, const char *settings)
{
    testutil_pooldriver_t *self = (testutil_pooldriver_t *) zmalloc (sizeof *self);
    snprintf (self->dir, sizeof self->dir, "/tmp/drover-pool-%s-XXXXXX", name);
    assert_non_null (mkdtemp (self->dir));
    snprintf (self->config, sizeof self->config, "%s/broker.cfg", self->dir);
    FILE *file = fopen (self->config, "w");
    assert_non_null (file);
    self->metrics = testutil_free_port ();
    fprintf (file,
        "broker\n"
        "    metrics = 127.0.0.1:%d\n"
        "health\n"
        "    heartbeat = 200\n"
        "    lost-after = 1000\n"
        "pool\n"
        "    driver = command\n"
        "    command = " S_SCRIPT "\n"
        "    list-interval = 500\n"
        "%s"
        "    type\n"
        "        one\n"
        "            procs = 1\n"
        "            memory = 1G\n"
        "            price = 0.1\n", self->metrics, settings);
    fclose (file);
    setenv ("DROVER_TEST_DIR", self->dir, 1);
    setenv ("DROVER_TEST_BIN", DROVER_BIN, 1);
    self->flags [0] = "--config";
    self->flags [1] = self->config;
    self->cluster = testutil_cluster_new (self->flags);
    self->dealer = testutil_dealer (self->cluster);
    self->sub = testutil_cluster_sub (self->cluster, self->dealer, "", "poke");
    return self;
}

//  Kill the worker whose pid file is path (a stopped one too) and wait
//  until it is gone
static void
s_kill_worker (const char *path)
{
    char *text = testutil_slurp (path);
    pid_t pid = text? atoi (text): 0;
    free (text);
    if (pid <= 0)
        return;
    kill (pid, SIGCONT);
    if (kill (pid, SIGKILL) == 0)
        assert_true (testutil_await_gone (pid, 5000));
}

//  Stop the broker, then every worker the driver started
void
testutil_pooldriver_destroy (testutil_pooldriver_t **self_p)
{
    testutil_pooldriver_t *self = *self_p;
    if (!self)
        return;
    zsock_destroy (&self->sub);
    zsock_destroy (&self->dealer);
    testutil_cluster_destroy (&self->cluster);
    char *path = zsys_sprintf ("%s/instances", self->dir);
    DIR *dir = opendir (path);
    struct dirent *entry;
    while (dir && (entry = readdir (dir))) {
        size_t length = strlen (entry->d_name);
        if (length < 5 || !streq (entry->d_name + length - 4, ".pid"))
            continue;
        char *file = zsys_sprintf ("%s/%s", path, entry->d_name);
        s_kill_worker (file);
        zstr_free (&file);
    }
    if (dir)
        closedir (dir);
    zstr_free (&path);
    testutil_remove_tree (self->dir);
    unsetenv ("DROVER_TEST_DIR");
    unsetenv ("DROVER_TEST_BIN");
    free (self);
    *self_p = NULL;
}

//  Write text into the driver's directory's file name; NULL removes it
void
testutil_pooldriver_cue (testutil_pooldriver_t *self, const char *name, const char *text)
{
    char *path = zsys_sprintf ("%s/%s", self->dir, name);
    if (text) {
        char *temp = zsys_sprintf ("%s.tmp", path);
        FILE *file = fopen (temp, "w");
        assert_non_null (file);
        fputs (text, file);
        fclose (file);
        assert_int_equal (rename (temp, path), 0);
        zstr_free (&temp);
    }
    else
        unlink (path);
    zstr_free (&path);
}

//  Find the nth call (from 1) starting with prefix in calls.time: its
//  time, or 0 if there is none; *count_p, if not NULL, gets how many
//  such calls there are (nth 0: count them all)
static uint64_t
s_scan_calls (testutil_pooldriver_t *self, const char *prefix, int nth, int *count_p)
{
    char *path = zsys_sprintf ("%s/calls.time", self->dir);
    char *text = testutil_slurp (path);
    zstr_free (&path);
    uint64_t when = 0;
    int count = 0;
    for (char *line = text; line && *line; ) {
        char *space = strchr (line, ' ');
        if (space && strncmp (space + 1, prefix, strlen (prefix)) == 0
        &&  ++count == nth)
            when = strtoull (line, NULL, 10);
        char *end = strchr (line, '\n');
        line = end? end + 1: NULL;
    }
    free (text);
    if (count_p)
        *count_p = count;
    return when;
}

//  How many calls of the driver so far start with prefix
int
testutil_pooldriver_calls (testutil_pooldriver_t *self, const char *prefix)
{
    int count;
    s_scan_calls (self, prefix, 0, &count);
    return count;
}

//  When the nth call starting with prefix was made; 0 if not (yet)
uint64_t
testutil_pooldriver_call_time (testutil_pooldriver_t *self, const char *prefix, int nth)
{
    assert (nth > 0);
    return s_scan_calls (self, prefix, nth, NULL);
}

//  Wait until the driver had count calls starting with prefix
bool
testutil_pooldriver_await_calls (testutil_pooldriver_t *self, const char *prefix, int count,
                                 int timeout)
{
    int64_t until = zclock_mono () + timeout;
    while (testutil_pooldriver_calls (self, prefix) < count) {
        if (zclock_mono () >= until)
            return false;
        zclock_sleep (10);          //  paces reading the file; the deadline bounds the wait
    }
    return true;
}

//  The pid of an instance's worker, 0 if none
pid_t
testutil_pooldriver_worker_pid (testutil_pooldriver_t *self, const char *name)
{
    char *path = zsys_sprintf ("%s/instances/%s.pid", self->dir, name);
    char *text = testutil_slurp (path);
    zstr_free (&path);
    pid_t pid = text? atoi (text): 0;
    free (text);
    return pid;
}

//  Match a healthy row with the admin setting *arg (DROVER_ADMIN_*)
static bool
s_with_admin (const drover_worker_row_t *row, void *arg)
{
    return row->health == DROVER_HEALTH_OK && row->admin == *(int *) arg;
}

//  Wait until the broker lists worker id registered with the admin setting
bool
testutil_pooldriver_await_admin (testutil_pooldriver_t *self, const char *id, int admin,
                                 int timeout)
{
    return testutil_wait_worker_row (self->dealer, id, s_with_admin, &admin, timeout);
}

//  Wait for the next event of topic whose reason holds text
bool
testutil_pooldriver_await_event (testutil_pooldriver_t *self, const char *topic,
                                 const char *text, drover_event_t *event, int timeout)
{
    int64_t until = zclock_mono () + timeout;
    while (zclock_mono () < until)
        if (testutil_next_event (self->sub, event, (int) (until - zclock_mono ()))
        &&  streq (event->topic, topic) && strstr (event->reason, text))
            return true;
    return false;
}
