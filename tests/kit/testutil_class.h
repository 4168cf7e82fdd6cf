/*  =========================================================================
    testutil_class - the broker's classes driven in-process, without their actors:
    a task table on a fake clock and the actions it decides, task records,
    and what a class says into an outbox
    =========================================================================
*/

#ifndef TESTUTIL_CLASS_H_INCLUDED
#define TESTUTIL_CLASS_H_INCLUDED

#include "testutil.h"
#include "drover_msg.h"
#include "drover_outbox.h"
#include "drover_assign.h"

//  The actions of one call into a task table, copied out of it
#define TESTUTIL_MAX_ACTIONS    256
typedef struct {
    drover_action_t items [TESTUTIL_MAX_ACTIONS];   //  in the order decided
    int count;                  //  actions held
} testutil_actions_t;

//  Take every pending action of a task table (their borrowed pointers stay
//  valid until the next call into the table); a static buffer
testutil_actions_t *
    testutil_take_actions (drover_assign_t *table);

//  Find the nth action of a type about a task (task 0: any), or NULL
drover_action_t *
    testutil_find_action (testutil_actions_t *actions, int type, uint64_t task, int nth);

//  The messages an actor's class said into an outbox as SEND or REPLY
//  records, decoded, in order, with each record's worker ("" a client)
#define TESTUTIL_MAX_SENDS      16
typedef struct {
    drover_msg_t *msgs [TESTUTIL_MAX_SENDS];    //  decoded, owned
    char workers [TESTUTIL_MAX_SENDS][DROVER_ID_MAX + 1];   //  each record's worker
    size_t count;               //  messages held
} testutil_sends_t;

//  Read every record the outbox holds into sends (empty on entry):
//  asserts each is a SEND or REPLY whose payload decodes
void
    testutil_read_sends (drover_outbox_t *outbox, testutil_sends_t *sends);

//  Destroy the messages sends holds; it is empty after
void
    testutil_sends_reset (testutil_sends_t *sends);

//  Make a QUEUED task record (drover_taskrecord) with id, as a TASK SUBMIT
//  of `true` at priority, demanding procs and mem bytes, would make it
struct _drover_taskrecord_t *
    testutil_taskrecord (uint64_t id, int priority, int procs, uint64_t mem);

//  The routes testutil_fake_table gives its client and workers
#define TESTUTIL_CLIENT_ROUTE   (const byte *) "\x00\x01" "client", 8
#define TESTUTIL_ALPHA_ROUTE    (const byte *) "\x00\x03" "alpha", 7
#define TESTUTIL_BETA_ROUTE     (const byte *) "\x00\x04" "beta", 6

//  A task table on a fake wall clock reading *now (msec since the epoch),
//  with workers alpha and beta up and its actions so far taken
drover_assign_t *
    testutil_fake_table (int64_t *now);

//  Submit "true" (1 proc) with retries from the client; asserts it is
//  accepted, takes the actions and returns its id
uint64_t
    testutil_table_submit (drover_assign_t *table, uint32_t retries);

//  Report a worker's TASK RESULT to a task table (reason NULL: none);
//  asserts it is accepted
void
    testutil_table_result (drover_assign_t *table, uint64_t task, const char *worker,
                           uint32_t attempt, int outcome, int exit_code, int signal,
                           const char *reason);

#endif
