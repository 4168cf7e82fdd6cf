/*  =========================================================================
    testutil_ha - several brokers for one test: a real etcd and a real
    PostgreSQL started on loopback (tests/etcd_server.sh, pg_server.sh),
    brokers electing a leader through the one and keeping their state in
    the other, and workers given the list of every broker
    =========================================================================
*/

#ifndef TESTUTIL_HA_H_INCLUDED
#define TESTUTIL_HA_H_INCLUDED

#include "testutil.h"

#define TESTUTIL_HA_BROKERS     3   //  brokers at most
#define TESTUTIL_HA_WORKERS     4   //  workers at most
#define TESTUTIL_HA_QUEUES      4   //  named queues at most

typedef struct {
    char dir [64];              //  logs, etcd's and PostgreSQL's data
    char etcd [64];             //  etcd's client URL
    char postgres [160];        //  the state's URI
    uint32_t lease_ttl;         //  msec, ha/lease-ttl of every broker
    int nbrokers;               //  brokers b1..bN
    char endpoints [TESTUTIL_HA_BROKERS][64];   //  each broker's ROUTER, tcp://127.0.0.1:P
    char events [TESTUTIL_HA_BROKERS][64];      //  each broker's PUB
    char endpoint_list [TESTUTIL_HA_BROKERS * 64];  //  every ROUTER, comma-separated
    pid_t brokers [TESTUTIL_HA_BROKERS];        //  pids, 0 if not running
    pid_t workers [TESTUTIL_HA_WORKERS];        //  pids, 0 if not running
    char worker_ids [TESTUTIL_HA_WORKERS][16];  //  by slot
    int broker_lives [TESTUTIL_HA_BROKERS];     //  starts of each broker, for its log name
    int nqueues;                //  named queues every broker offers
    char queue_names [TESTUTIL_HA_QUEUES][16];  //  their names
    char queue_endpoints [TESTUTIL_HA_BROKERS][TESTUTIL_HA_QUEUES][64]; //  broker's cell of each
    char queue_lists [TESTUTIL_HA_QUEUES][TESTUTIL_HA_BROKERS * 64];   //  every broker's, of each
    char queue_flags [TESTUTIL_HA_BROKERS][TESTUTIL_HA_QUEUES * 24 + 16];   //  ha/queues=...
    bool curve;                 //  CURVE, each broker with a key pair of its own:
                                //  dir/bN.key, bound on * and advertising 127.0.0.1
    char keys [96];             //  with curve: the keys directory every broker reads
    char broker_keys [96];      //  with curve: a directory of the brokers' public keys
    zcert_t *pairs [TESTUTIL_HA_BROKERS];   //  with curve: each broker's key pair
    zcert_t *tester;            //  with curve: the test's own pair, an admin key
} testutil_ha_t;

//  Start etcd, PostgreSQL and nbrokers brokers (b1..bN, lease_ttl msec),
//  each with the extra flags (NULL-terminated, may be NULL); returns once
//  one of them leads (asserts it does within 15 s) and every other one
//  has heard of it
testutil_ha_t *
    testutil_ha_new (int nbrokers, uint32_t lease_ttl, const char *extra_flags []);

//  As testutil_ha_new, every broker offering the named queues (names
//  comma-separated, NULL none) on ports of its own
testutil_ha_t *
    testutil_ha_new_queues (int nbrokers, uint32_t lease_ttl, const char *extra_flags [],
                            const char *queues);

//  As testutil_ha_new, every broker speaking CURVE with a key pair of its
//  own (dir/bN.key, its public half also in broker_keys/), all reading one
//  keys directory (keys/ with workers/, clients/, admins/: the test's own
//  pair is an admin), each bound on tcp://*:PORT and advertising
//  tcp://127.0.0.1:PORT; testutil_ha_dealer speaks CURVE to them
testutil_ha_t *
    testutil_ha_new_curve (int nbrokers, uint32_t lease_ttl);

//  With curve: write the pair dir/name.key and put its public half in the
//  keys directory's role subdirectory ("workers", "clients", "admins");
//  returns the pair's path (static buffer)
const char *
    testutil_ha_add_key (testutil_ha_t *self, const char *role, const char *name);

//  Start a worker in slot serving named queue index, given every broker's
//  endpoint of it
void
    testutil_ha_add_queue_worker (testutil_ha_t *self, int slot, const char *id, int procs,
                                  int queue);

//  A DEALER connected to broker index's cell of named queue index
zsock_t *
    testutil_ha_queue_dealer (testutil_ha_t *self, int index, int queue);

//  The index of the broker whose cell of named queue index serves,
//  waiting up to timeout msec; -1 if none did
int
    testutil_ha_queue_owner (testutil_ha_t *self, int queue, int timeout);

//  Start broker index (again: a fresh log, same ports)
void
    testutil_ha_start_broker (testutil_ha_t *self, int index, const char *extra_flags []);

//  Start a worker in slot with id and procs, given every broker's endpoint
void
    testutil_ha_add_worker (testutil_ha_t *self, int slot, const char *id, int procs);

//  The index of the broker that serves (answers a TASK LIST with a TASK
//  TABLE, not a REDIRECT), waiting up to timeout msec; -1 if none did
int
    testutil_ha_leader (testutil_ha_t *self, int timeout);

//  A DEALER connected to broker index
zsock_t *
    testutil_ha_dealer (testutil_ha_t *self, int index);

//  Path of a process's log (static buffer): "b1", "w1", "etcd"...
const char *
    testutil_ha_log (testutil_ha_t *self, const char *name);

//  Restart the etcd server (SIGKILL, then started again on its ports with
//  its data: every connection to it is cut); returns once it is healthy
void
    testutil_ha_etcd_restart (testutil_ha_t *self);
//  Pause (SIGSTOP) or resume (SIGCONT) the etcd server
void
    testutil_ha_etcd_signal (testutil_ha_t *self, bool pause);

//  Stop every process and both servers; the directory is removed unless
//  the test failed before (then its logs stay)
void
    testutil_ha_destroy (testutil_ha_t **self_p);

#endif
