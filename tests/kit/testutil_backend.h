/*  =========================================================================
    testutil_backend - what the store's backend tests share (the sqlite and
    memory backends in test_drover_store_roundtrip, _refused and _formats,
    PostgreSQL in test_drover_postgres): the changes they apply and the
    collectors of what load, replay, load_admin and load_services hand back
    =========================================================================
*/

#ifndef TESTUTIL_BACKEND_H_INCLUDED
#define TESTUTIL_BACKEND_H_INCLUDED

#include "testutil.h"
#include "drover_store.h"

//  A change about task with seq and state after it (2 retries left)
drover_change_t *
    testutil_change (const char *topic, uint64_t task, uint64_t seq, int state);

//  A task.queued change with its submit: key (or NULL), a body, labels
drover_change_t *
    testutil_queued (uint64_t task, uint64_t seq, const char *key);

//  testutil_queued, with what format 4 keeps too: owned by alice, slot 3
//  of service web, affinity cache-7, queued at 500
drover_change_t *
    testutil_queued_owned (uint64_t task, uint64_t seq, const char *key);

//  testutil_queued, with what format 5 keeps too (workflows): an after
//  list of three entries (one of each kind, ids past 32 bits), begin,
//  retry delays and an array; waiting for its parents until a due time,
//  a member of group 90 with 7 elements made
drover_change_t *
    testutil_queued_workflow (uint64_t task, uint64_t seq);

//  Check a loaded task's submit has the workflow fields that
//  testutil_queued_workflow gave it
void
    testutil_assert_workflow_submit (const drover_change_t *change);

//  A change to attempt on worker, offered at 600 and started at 700
drover_change_t *
    testutil_attempt (const char *topic, uint64_t task, uint64_t seq, int state,
                      uint32_t attempt, const char *worker);

//  A final change (attempt on w1) with its result: out on stdout, "oops"
//  on stderr
drover_change_t *
    testutil_final (uint64_t task, uint64_t seq, int state, int end, uint32_t attempt,
                    const char *out);

//  The first batch of a round trip, 9 changes into batch: worker w1 up
//  (procs=4); tasks 1-3 queued (keys key-1, none, key-3), each owned as
//  testutil_queued_owned makes it if owned; 2 and 3 assigned to w1 and
//  running; 3 SUCCEEDED (stdout "hello") at time 1000
void
    testutil_round_trip_batch (drover_change_t *batch [9], bool owned);

//  Check a loaded change's result is the FAILED one testutil_final made
//  with out on stdout: exit 3, 1234 ms, "oops" on stderr (truncated),
//  "exited 3"
void
    testutil_assert_failed_result (const drover_change_t *change, const char *out);

//  Apply changes (count of them) and destroy them; returns apply's result
int
    testutil_apply (drover_store_t *backend, drover_change_t **changes, size_t count,
                    char *error);

//  Apply task (testutil_queued) as one batch of its own: queued, or if
//  final SUCCEEDED at time ended; asserts it is kept
void
    testutil_apply_task (drover_store_t *backend, uint64_t task, bool final, uint64_t ended);

//  Prune all there is, max_rows a call, adding what it deleted to *total;
//  returns the calls that deleted something, and asserts none deleted more
//  than max_rows and none failed
int
    testutil_prune_all (drover_store_t *backend, uint64_t keep_count, uint64_t keep_age,
                        uint64_t keep_events, uint64_t now, size_t max_rows, int64_t *total);

//  Check a loaded task's submit against what testutil_queued made
void
    testutil_assert_submit (drover_change_t *change, uint64_t task, const char *key);

//  Check a loaded task's submit against what testutil_queued_owned made
void
    testutil_assert_submit_owned (drover_change_t *change, uint64_t task, const char *key);

//  What load hands over: counted, the first 256 kept in order
#define TESTUTIL_LOADED_MAX     256
typedef struct {
    drover_change_t *changes [TESTUTIL_LOADED_MAX];     //  owned
    size_t count;                                       //  handed
} testutil_loaded_t;

//  Keep one loaded task (load calls this with a testutil_loaded_t)
int
    testutil_take_task (void *arg, drover_change_t **change_p);

//  Destroy what was loaded and start counting again
void
    testutil_loaded_free (testutil_loaded_t *loaded);

//  Load every kept task into loaded (failing the test with load's text
//  if it fails); returns the count
int64_t
    testutil_load (drover_store_t *backend, size_t max_final, testutil_loaded_t *loaded);

//  What replay hands over, kept in order
typedef struct {
    drover_event_t events [256];        //  copies
    size_t count;                       //  in events
} testutil_replayed_t;

//  Copy one replayed event (replay calls this with a testutil_replayed_t)
int
    testutil_take_event (void *arg, const drover_event_t *event);

//  Settings kept by load_admin, copied
typedef struct {
    size_t count;                   //  entries filled
    char worker [4][DROVER_ID_MAX + 1];
    int admin [4];
    uint32_t flags [4];
    char reason [4][64];
    uint64_t since [4];
} testutil_admins_t;

//  Copy one kept setting (load_admin calls this with a testutil_admins_t)
int
    testutil_take_admin (void *arg, const drover_store_admin_t *admin);

//  Services kept by load_services, copied
typedef struct {
    size_t count;                   //  entries filled
    char name [4][DROVER_ID_MAX + 1];
    char def [4][32];               //  the definitions (text in these tests)
} testutil_services_t;

//  Copy one kept service (load_services calls this with a testutil_services_t)
int
    testutil_take_service (void *arg, const char *name, const byte *def, size_t size);

//  Apply the workflow round trip in two batches: tasks first (workflow
//  fields), first + 1 (none: NULL after and array) and first + 2
//  (workflow) submitted; then first released (waits, due, made change),
//  first + 1 waiting for a retry, first + 2 FAILED (made changes), and
//  first + 3 submitted and released in the same batch. Seqs from seq.
void
    testutil_workflow_apply (drover_store_t *backend, uint64_t first, uint64_t seq);

//  Check the tasks testutil_workflow_apply applied are in loaded as it
//  left them
void
    testutil_workflow_assert_loaded (testutil_loaded_t *loaded, uint64_t first);

//  Apply the sharing round trip (format 6) in two batches: first (devices
//  gpu=2,fpga=1, preemptible, its owner bob on the change alone), first +
//  1 (no devices; submitted and started with assigned "gpu=1" in one
//  batch) and first + 2 (neither) submitted; then first started with
//  assigned "gpu=0,2;fpga=4", first + 1 FAILED (assigned kept). Seqs from
//  seq.
void
    testutil_sharing_apply (drover_store_t *backend, uint64_t first, uint64_t seq);

//  Check the tasks testutil_sharing_apply applied are in loaded as it
//  left them
void
    testutil_sharing_assert_loaded (testutil_loaded_t *loaded, uint64_t first);

#endif
