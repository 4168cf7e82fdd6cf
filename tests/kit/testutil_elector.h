/*  =========================================================================
    testutil_elector - the elector actor's tests' fixtures (test_drover_
    elector_actor_lead, _queues): the etcd a test group starts, electors
    started with a key prefix of their own, what each said (LEADER,
    DEPOSED, FOLLOW, QUEUE) read from their pipes in order, and waits on
    what they said with a deadline
    =========================================================================
*/

#ifndef TESTUTIL_ELECTOR_H_INCLUDED
#define TESTUTIL_ELECTOR_H_INCLUDED

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_servers.h"
#include "drover_elector_actor.h"
#include "drover_etcd.h"

//  The lease TTL the electors are started with, msec (etcd's least is 2 s)
#define TESTUTIL_ELECTOR_TTL        2000

//  The named queues the queue tests offer
#define TESTUTIL_ELECTOR_QUEUES     4

//  What an elector last said of one named queue
typedef struct {
    char owner [16];            //  its owner, "" for none
    char owner_at [64];         //  the owner's endpoint for it
    uint64_t token;             //  its token
    char endpoints [160];       //  every member's endpoint for it
    int said;                   //  QUEUEs said of it
    int released;               //  QUEUEs naming no owner after one naming this elector
    int64_t released_at;        //  msec (mono) the last such was read
    int released_seq;           //  its place among every message read (testutil_elector_seq)
} testutil_elector_queue_t;

//  One elector under test and what it said
typedef struct {
    zactor_t *actor;            //  the elector
    char name [16];             //  its broker name
    char advertise [64];        //  its endpoint
    bool leader;                //  said LEADER, no DEPOSED since
    bool revoked;               //  its lease was revoked behind its back: it does not
                                //  know until its next renewal or read, so another
                                //  may lead before its DEPOSED (fencing's case)
    uint64_t token;             //  the token of its last LEADER
    int leaders;                //  LEADERs said
    int deposed;                //  DEPOSEDs said
    int64_t deposed_at;         //  msec (mono) its last DEPOSED was read
    char reason [128];          //  the reason of its last DEPOSED
    char following [64];        //  the name of its last FOLLOW
    char following_at [64];     //  the endpoint of its last FOLLOW
    int follows;                //  FOLLOWs said
    int deposed_seq;            //  its last DEPOSED's place among every message read
    testutil_elector_queue_t queues [TESTUTIL_ELECTOR_QUEUES];  //  what it said of each queue
} testutil_elector_t;

//  Read from the electors until condition holds, failing after timeout msec
#define TESTUTIL_ELECTOR_AWAIT(electors, count, condition, timeout) do { \
    int64_t s_deadline = zclock_mono () + (timeout); \
    while (!(condition)) { \
        int64_t s_left = s_deadline - zclock_mono (); \
        if (s_left <= 0 || !testutil_elector_pump ((electors), (count), (int) s_left)) \
            fail_msg ("timed out waiting for: %s", #condition); \
    } \
} while (0)

//  The etcd every test of a group uses (each test has its own prefix)
extern testutil_etcd_t *testutil_elector_etcd;

//  The named queues the queue tests offer
extern const char *testutil_elector_queue_names [TESTUTIL_ELECTOR_QUEUES];

//  Messages read from all electors so far: the order they were said in
extern int testutil_elector_seq;

//  Start etcd for the group
int
    testutil_elector_group_setup (void **state);

//  Start an elector named name, reached at advertise, with key prefix
//  prefix, offering queues ("Q EP" lines, or NULL) placed by strategy
void
    testutil_elector_start_full (testutil_elector_t *elector, const char *name,
                                 const char *advertise, const char *prefix, const char *etcd,
                                 const char *queues, const char *strategy);

//  Start an elector named name, reached at advertise, with key prefix prefix
void
    testutil_elector_start_at (testutil_elector_t *elector, const char *name,
                               const char *advertise, const char *prefix, const char *etcd);

//  The endpoint broker name serves queue on, in the queue tests
void
    testutil_elector_queue_endpoint (char *endpoint, size_t size, const char *name,
                                     const char *queue);

//  Start an elector named name offering the queues a b c d, placed by strategy
void
    testutil_elector_start_queues (testutil_elector_t *elector, const char *name,
                                   const char *prefix, const char *strategy);

//  Note a QUEUE name owner owner_endpoint token endpoints
void
    testutil_elector_note_queue (testutil_elector_t *elector, zmsg_t *msg);

//  Start an elector named name with key prefix prefix, on a port of its own
void
    testutil_elector_start (testutil_elector_t *elector, const char *name, const char *prefix,
                            const char *etcd);

//  Note one message an elector said; a LEADER while another leads fails
void
    testutil_elector_note (testutil_elector_t *electors, size_t count, testutil_elector_t *elector,
                           zmsg_t *msg);

//  Read what waits from every elector but except, without waiting
void
    testutil_elector_drain_others (testutil_elector_t *electors, size_t count,
                                   testutil_elector_t *except);

//  Read one message from any elector within timeout msec; false if none.
//  Before a message from one, what the others said earlier is read, so a
//  LEADER is judged after any DEPOSED said before it.
bool
    testutil_elector_pump (testutil_elector_t *electors, size_t count, int timeout);

//  The barrier of one elector's pipe: PEERS is answered in order, after
//  everything it said before. Ask it, note each message before the answer
//  (testutil_elector_note), and return the answer's count of peers (its first field
//  after the word; "0" when etcd did not answer); *said_p: the messages
//  noted before it
int
    testutil_elector_barrier (testutil_elector_t *electors, size_t count,
                              testutil_elector_t *elector, int *said_p);

//  Nothing is said for msec (it would fail at once), nor up to each
//  elector's barrier after: what was due in that time, from a renewal or
//  a read of etcd, had been said by then. Returns the peers the last
//  elector's PEERS answer lists (its look at etcd after that time)
int
    testutil_elector_expect_quiet (testutil_elector_t *electors, size_t count, int msec);

//  Stop the electors that are still running
void
    testutil_elector_stop_all (testutil_elector_t *electors, size_t count);

//  Which of two electors leads (asserts exactly one does)
testutil_elector_t *
    testutil_elector_the_leader (testutil_elector_t *electors);

//  Wait until one of two leads and the other follows it
testutil_elector_t *
    testutil_elector_await_one_leads (testutil_elector_t *electors, int timeout);

#endif
