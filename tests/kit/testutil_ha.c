/*  =========================================================================
    testutil_ha - several brokers for one test (see the header)
    =========================================================================
*/

#include "testutil_ha.h"
#include "testutil_proc.h"
#include "testutil_servers.h"
#include "testutil_keys.h"
#include "testutil_wire.h"
#include <signal.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

//  Path of a process's log (static buffer)
const char *
testutil_ha_log (testutil_ha_t *self, const char *name)
{
    static char path [128];
    snprintf (path, sizeof path, "%s/%s.log", self->dir, name);
    return path;
}

//  Start broker index (again: the earlier log kept as bN-LIFE.log)
void
testutil_ha_start_broker (testutil_ha_t *self, int index, const char *extra_flags [])
{
    char name [16], ttl [16];
    snprintf (name, sizeof name, "b%d", index + 1);
    snprintf (ttl, sizeof ttl, "%u", self->lease_ttl);
    const char *log = testutil_ha_log (self, name);
    if (self->broker_lives [index]++) {
        char kept [160];
        snprintf (kept, sizeof kept, "%s/%s-%d.log", self->dir, name, self->broker_lives [index] - 1);
        rename (log, kept);
    }
    const char *argv [40] = { DROVER_BIN, "broker", "--endpoint", self->endpoints [index],
                              "--events", self->events [index], "--state", self->postgres,
                              "--etcd", self->etcd, "--name", name, "--lease-ttl", ttl,
                              "--set", "health/heartbeat=200", "--set", "health/lost-after=2000" };
    int argc = 18;
    char bind [64], events [64], key [128];
    if (self->curve) {
        //  Bound on every address, as on a machine with several; peers are
        //  told the loopback one
        snprintf (bind, sizeof bind, "tcp://*:%s", strrchr (self->endpoints [index], ':') + 1);
        snprintf (events, sizeof events, "tcp://*:%s", strrchr (self->events [index], ':') + 1);
        snprintf (key, sizeof key, "%s/%s.key", self->dir, name);
        argv [3] = bind;
        argv [5] = events;
        const char *flags [] = { "--advertise", self->endpoints [index], "--key", key,
                                 "--keys", self->keys };
        for (int flag = 0; flag < 6; flag++)
            argv [argc++] = flags [flag];
    }
    if (self->queue_flags [index][0]) {
        argv [argc++] = "--set";
        argv [argc++] = self->queue_flags [index];
    }
    for (int flag = 0; extra_flags && extra_flags [flag] && argc < 39; flag++)
        argv [argc++] = extra_flags [flag];
    argv [argc] = NULL;
    self->brokers [index] = testutil_spawn (argv, testutil_ha_log (self, name));
    assert_true (self->brokers [index] > 0);
    assert_true (testutil_await_line (testutil_ha_log (self, name), "ha: standing by", 10000)
              || testutil_await_line (testutil_ha_log (self, name), "ha: elected", 1000));
}

//  Give every broker a port pair (PORT, PORT+1 free, apart from the pairs
//  given) for each named queue of the comma-separated names
static void
s_plan_queues (testutil_ha_t *self, const char *queues)
{
    int taken [TESTUTIL_HA_BROKERS * TESTUTIL_HA_QUEUES];
    int ntaken = 0;
    for (const char *name = queues; name && *name; ) {
        size_t length = strcspn (name, ",");
        assert_true (self->nqueues < TESTUTIL_HA_QUEUES && length < 16);
        memcpy (self->queue_names [self->nqueues++], name, length);
        name += length + (name [length] == ',');
    }
    for (int index = 0; index < self->nbrokers; index++) {
        snprintf (self->queue_flags [index], sizeof self->queue_flags [index], "ha/queues=");
        for (int queue = 0; queue < self->nqueues; queue++) {
            int port;
            bool apart;
            do {
                port = testutil_free_port ();
                apart = port < 65534 && testutil_port_free (port + 1);
                for (int other = 0; other < ntaken && apart; other++)
                    apart = abs (taken [other] - port) > 1;
            } while (!apart);
            taken [ntaken++] = port;
            size_t used = strlen (self->queue_flags [index]);
            snprintf (self->queue_flags [index] + used, sizeof self->queue_flags [index] - used,
                      "%s%s=%d", queue? ",": "", self->queue_names [queue], port);
            snprintf (self->queue_endpoints [index][queue], 64, "tcp://127.0.0.1:%d", port);
            used = strlen (self->queue_lists [queue]);
            snprintf (self->queue_lists [queue] + used, sizeof self->queue_lists [queue] - used,
                      "%s%s", index? ",": "", self->queue_endpoints [index][queue]);
        }
    }
}

//  Start etcd, PostgreSQL and the brokers; return once one leads and the
//  others name it
testutil_ha_t *
testutil_ha_new (int nbrokers, uint32_t lease_ttl, const char *extra_flags [])
{
    return testutil_ha_new_queues (nbrokers, lease_ttl, extra_flags, NULL);
}

static testutil_ha_t *
    s_ha_new (int nbrokers, uint32_t lease_ttl, const char *extra_flags [],
              const char *queues, bool curve);

//  The same, every broker offering the named queues
testutil_ha_t *
testutil_ha_new_queues (int nbrokers, uint32_t lease_ttl, const char *extra_flags [],
                        const char *queues)
{
    return s_ha_new (nbrokers, lease_ttl, extra_flags, queues, false);
}

//  The same, every broker with CURVE and a key pair of its own
testutil_ha_t *
testutil_ha_new_curve (int nbrokers, uint32_t lease_ttl)
{
    return s_ha_new (nbrokers, lease_ttl, NULL, NULL, true);
}

//  Write a pair dir/name.key, its public half in a role subdirectory
const char *
testutil_ha_add_key (testutil_ha_t *self, const char *role, const char *name)
{
    static char path [160];
    assert_true (self->curve);
    snprintf (path, sizeof path, "%s/%s.key", self->dir, name);
    zcert_t *pair = testutil_save_key_pair (path);
    char *public_path = zsys_sprintf ("%s/%s/%s.key", self->keys, role, name);
    assert_int_equal (zcert_save_public (pair, public_path), 0);
    zstr_free (&public_path);
    zcert_destroy (&pair);
    return path;
}

//  Make the keys of CURVE brokers: each broker's pair, the keys directory,
//  the test's own admin pair
static void
s_make_keys (testutil_ha_t *self)
{
    snprintf (self->keys, sizeof self->keys, "%s/keys", self->dir);
    snprintf (self->broker_keys, sizeof self->broker_keys, "%s/brokers", self->dir);
    const char *dirs [] = { self->keys, self->broker_keys };
    for (int index = 0; index < 2; index++)
        assert_int_equal (mkdir (dirs [index], 0755), 0);
    const char *roles [] = { "workers", "clients", "admins" };
    for (int index = 0; index < 3; index++) {
        char *path = zsys_sprintf ("%s/%s", self->keys, roles [index]);
        assert_int_equal (mkdir (path, 0755), 0);
        zstr_free (&path);
    }
    for (int index = 0; index < self->nbrokers; index++) {
        char *path = zsys_sprintf ("%s/b%d.key", self->dir, index + 1);
        self->pairs [index] = testutil_save_key_pair (path);
        zstr_free (&path);
        path = zsys_sprintf ("%s/b%d.key", self->broker_keys, index + 1);
        assert_int_equal (zcert_save_public (self->pairs [index], path), 0);
        zstr_free (&path);
    }
    self->tester = zcert_new ();
    char *path = zsys_sprintf ("%s/admins/tester.key", self->keys);
    assert_int_equal (zcert_save_public (self->tester, path), 0);
    zstr_free (&path);
}

//  Start etcd, PostgreSQL and the brokers
static testutil_ha_t *
s_ha_new (int nbrokers, uint32_t lease_ttl, const char *extra_flags [], const char *queues,
          bool curve)
{
    assert_true (nbrokers >= 1 && nbrokers <= TESTUTIL_HA_BROKERS);
    testutil_ha_t *self = (testutil_ha_t *) zmalloc (sizeof (testutil_ha_t));
    snprintf (self->dir, sizeof self->dir, "/tmp/drover-ha-XXXXXX");
    assert_non_null (mkdtemp (self->dir));
    chmod (self->dir, 0711);    //  the server runs as postgres, under it
    self->lease_ttl = lease_ttl;
    self->nbrokers = nbrokers;
    self->curve = curve;
    if (curve)
        s_make_keys (self);
    char etcd_dir [96], pg_dir [96];
    snprintf (etcd_dir, sizeof etcd_dir, "%s/etcd", self->dir);
    snprintf (pg_dir, sizeof pg_dir, "%s/pg", self->dir);
    int ports [2];
    testutil_server_start ("etcd_server.sh", etcd_dir, ports, 2, self->etcd, sizeof self->etcd);
    testutil_server_start ("pg_server.sh", pg_dir, ports, 1, self->postgres,
                           sizeof self->postgres);
    for (int index = 0; index < nbrokers; index++) {
        int port = testutil_free_port_pair ();     //  events on the next port
        snprintf (self->endpoints [index], sizeof self->endpoints [index], "tcp://127.0.0.1:%d",
                  port);
        snprintf (self->events [index], sizeof self->events [index], "tcp://127.0.0.1:%d",
                  port + 1);
        size_t used = strlen (self->endpoint_list);
        snprintf (self->endpoint_list + used, sizeof self->endpoint_list - used, "%s%s",
                  index? ",": "", self->endpoints [index]);
    }
    s_plan_queues (self, queues);
    for (int index = 0; index < nbrokers; index++)
        testutil_ha_start_broker (self, index, extra_flags);
    int leader = testutil_ha_leader (self, 15000);
    assert_true (leader >= 0);
    //  ... and every standby has heard of it (it redirects there)
    char following [64];
    snprintf (following, sizeof following, "ha: following name=b%d ", leader + 1);
    for (int index = 0; index < nbrokers; index++) {
        char name [16];
        snprintf (name, sizeof name, "b%d", index + 1);
        if (index != leader)
            assert_true (testutil_await_line (testutil_ha_log (self, name), following, 10000));
    }
    return self;
}

//  Start a worker in slot, given every broker's endpoint
void
testutil_ha_add_worker (testutil_ha_t *self, int slot, const char *id, int procs)
{
    assert_true (slot >= 0 && slot < TESTUTIL_HA_WORKERS);
    snprintf (self->worker_ids [slot], sizeof self->worker_ids [slot], "%s", id);
    char procs_text [8];
    snprintf (procs_text, sizeof procs_text, "%d", procs);
    const char *argv [] = { DROVER_BIN, "worker", "--broker", self->endpoint_list, "--id", id,
                            "--procs", procs_text, "--workdir", self->dir, "--verbose", NULL };
    self->workers [slot] = testutil_spawn (argv, testutil_ha_log (self, id));
    assert_true (self->workers [slot] > 0);
}

//  Start a worker in slot serving named queue index
void
testutil_ha_add_queue_worker (testutil_ha_t *self, int slot, const char *id, int procs,
                              int queue)
{
    assert_true (slot >= 0 && slot < TESTUTIL_HA_WORKERS && queue < self->nqueues);
    snprintf (self->worker_ids [slot], sizeof self->worker_ids [slot], "%s", id);
    char procs_text [8];
    snprintf (procs_text, sizeof procs_text, "%d", procs);
    const char *argv [] = { DROVER_BIN, "worker", "--broker", self->queue_lists [queue],
                            "--id", id, "--procs", procs_text, "--workdir", self->dir,
                            "--verbose", NULL };
    self->workers [slot] = testutil_spawn (argv, testutil_ha_log (self, id));
    assert_true (self->workers [slot] > 0);
}

//  A DEALER connected to broker index's cell of named queue index
zsock_t *
testutil_ha_queue_dealer (testutil_ha_t *self, int index, int queue)
{
    assert_true (queue < self->nqueues);
    zsock_t *dealer = zsock_new_dealer (self->queue_endpoints [index][queue]);
    assert_non_null (dealer);
    zsock_set_linger (dealer, 0);
    drover_msg_say_level (dealer);      //  a client's level: a standby REDIRECTs it
    return dealer;
}

//  A DEALER connected to broker index
zsock_t *
testutil_ha_dealer (testutil_ha_t *self, int index)
{
    zsock_t *dealer = zsock_new (ZMQ_DEALER);
    assert_non_null (dealer);
    zsock_set_linger (dealer, 0);
    if (self->curve) {
        zcert_apply (self->tester, dealer);
        zsock_set_curve_serverkey (dealer, zcert_public_txt (self->pairs [index]));
    }
    assert_int_equal (zsock_connect (dealer, "%s", self->endpoints [index]), 0);
    drover_msg_say_level (dealer);      //  a client's level: a standby REDIRECTs it
    return dealer;
}

//  True if broker index (its cell of named queue, -1 the broker itself)
//  answers a TASK LIST itself within timeout msec
static bool
s_serves (testutil_ha_t *self, int index, int queue, int timeout)
{
    if (!self->brokers [index])
        return false;
    zsock_t *dealer = queue < 0? testutil_ha_dealer (self, index):
                                 testutil_ha_queue_dealer (self, index, queue);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->seq = 7;
    drover_msg_t *reply = testutil_request (dealer, &request, timeout);
    bool serves = reply && reply->id == DROVER_MSG_TASK_TABLE;
    drover_msg_destroy (&reply);
    zsock_destroy (&dealer);
    return serves;
}

//  The index of the broker that serves, waiting up to timeout msec
int
testutil_ha_leader (testutil_ha_t *self, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    do {
        for (int index = 0; index < self->nbrokers; index++)
            if (s_serves (self, index, -1, 200))
                return index;
    } while (zclock_mono () < deadline);
    return -1;
}

//  The index of the broker whose cell of named queue serves
int
testutil_ha_queue_owner (testutil_ha_t *self, int queue, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    do {
        for (int index = 0; index < self->nbrokers; index++)
            if (s_serves (self, index, queue, 200))
                return index;
    } while (zclock_mono () < deadline);
    return -1;
}

//  Restart the etcd server: killed, then started again with its data
void
testutil_ha_etcd_restart (testutil_ha_t *self)
{
    char etcd_dir [96];
    snprintf (etcd_dir, sizeof etcd_dir, "%s/etcd", self->dir);
    const char *args [] = { "restart", etcd_dir, NULL };
    char url [64];
    testutil_server_script ("etcd_server.sh", args, url, sizeof url);
}

//  Pause or resume the etcd server
void
testutil_ha_etcd_signal (testutil_ha_t *self, bool pause)
{
    char etcd_dir [96];
    snprintf (etcd_dir, sizeof etcd_dir, "%s/etcd", self->dir);
    const char *args [] = { pause? "pause": "resume", etcd_dir, NULL };
    testutil_server_script ("etcd_server.sh", args, NULL, 0);
}

//  Stop every process and both servers
void
testutil_ha_destroy (testutil_ha_t **self_p)
{
    testutil_ha_t *self = *self_p;
    if (!self)
        return;
    for (int slot = 0; slot < TESTUTIL_HA_WORKERS; slot++)
        if (self->workers [slot])
            testutil_stop (self->workers [slot], 5000);
    for (int index = 0; index < self->nbrokers; index++)
        if (self->brokers [index])
            testutil_stop (self->brokers [index], 10000);
    char etcd_dir [96], pg_dir [96];
    snprintf (etcd_dir, sizeof etcd_dir, "%s/etcd", self->dir);
    snprintf (pg_dir, sizeof pg_dir, "%s/pg", self->dir);
    const char *etcd_args [] = { "stop", etcd_dir, NULL };
    testutil_server_script ("etcd_server.sh", etcd_args, NULL, 0);
    const char *pg_args [] = { "stop", pg_dir, NULL };
    testutil_server_script ("pg_server.sh", pg_args, NULL, 0);
    testutil_remove_tree (self->dir);
    for (int index = 0; index < TESTUTIL_HA_BROKERS; index++)
        zcert_destroy (&self->pairs [index]);
    zcert_destroy (&self->tester);
    free (self);
    *self_p = NULL;
}
