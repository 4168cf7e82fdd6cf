/*  =========================================================================
    drover_benchmark_restartfloor - the floors under the restart phase's
    figure, each run with SQLite on the state file a broker restarted on:

    - read: the rows and columns the broker loads, by the broker's own
      queries, each value read out (restart_read_floor_ms); or (wide) by
      the one 44-column query loads used before state format 7;
    - check: SQLite's quick_check of the file, which the broker runs
      beside its load before it writes (restart_check_floor_ms);
    - load: the least a restart of this design does, run for real
      (restart_load_floor_ms). The check on a thread of its own, as the
      broker's; beside it the read, each row's values copied into a
      record of a batch of S_BATCH, each batch handed over inproc (its
      pointer, as the store hands assign its records) to an assign
      thread, which keeps each record where it is under its id (an open
      hash), then the batch's ids over inproc to a schedq thread, which
      queues them. Two hops a batch, as the store's RESTOREs cross to
      assign and assign's QUEUEs to schedq. Done when both the check and
      the queue are.

    Nothing of drover runs in them but the two query texts it loads by
    (drover_sqlite.h).
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_benchmark.h"
#include "drover_sqlite.h"
#include <pthread.h>
#include <sqlite3.h>

#define S_BATCH         1024                //  rows a batch carries, as the store's RESTOREs
#define S_ASSIGN        "inproc://drover-bench-load-assign"
#define S_SCHEDQ        "inproc://drover-bench-load-schedq"
#define S_TIMEOUT       10000               //  msec a send to a thread waits at most
#define S_BUSY_WAIT     10000               //  msec a connection waits for another's lock
                                            //  (the first to open the WAL rebuilds its index)

//  What to do with each row read: its statement, at the row
typedef void (s_row_fn) (sqlite3_stmt *stmt, void *arg);

//  What the plain read summed, so that no read is left out
static volatile uint64_t s_floor_sink;

//  Sum every value of a row at hand, as the loader reads it out
static void
s_sum_row (sqlite3_stmt *stmt, void *arg)
{
    uint64_t *sum = (uint64_t *) arg;
    int columns = sqlite3_column_count (stmt);
    for (int column = 0; column < columns; column++) {
        int type = sqlite3_column_type (stmt, column);
        if (type == SQLITE_INTEGER)
            *sum += (uint64_t) sqlite3_column_int64 (stmt, column);
        else
        if (type == SQLITE_TEXT)
            *sum += (uint64_t) (uintptr_t) sqlite3_column_text (stmt, column)
                  + (uint64_t) sqlite3_column_bytes (stmt, column);
        else
        if (type == SQLITE_BLOB)
            *sum += (uint64_t) (uintptr_t) sqlite3_column_blob (stmt, column)
                  + (uint64_t) sqlite3_column_bytes (stmt, column);
    }
}

//  Read the rows of the live query with ids between low and high (both
//  excluded), if there can be any; returns SQLite's result
static int
s_read_live (sqlite3_stmt *live, int64_t low, int64_t high, long long *rows, s_row_fn *fn,
             void *arg)
{
    if (high - low < 2)
        return SQLITE_DONE;
    sqlite3_reset (live);
    sqlite3_bind_int64 (live, 1, low);
    sqlite3_bind_int64 (live, 2, high);
    int rc;
    while ((rc = sqlite3_step (live)) == SQLITE_ROW) {
        fn (live, arg);
        (*rows)++;
    }
    return rc;
}

//  Read the tasks not final by the broker's two queries as its load runs
//  them: the fresh ones, and the others in the gaps between fresh ids
//  (DROVER_SQLITE_GAPS_MAX of them, then the rest in one range); fn on
//  each row. Returns SQLite's result.
static int
s_read_loaded (sqlite3 *db, long long *rows, s_row_fn *fn, void *arg)
{
    sqlite3_stmt *fresh = NULL, *live = NULL;
    int rc = sqlite3_prepare_v2 (db, DROVER_SQLITE_LOAD_FRESH, -1, &fresh, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2 (db, DROVER_SQLITE_LOAD_LIVE, -1, &live, NULL);
    int64_t low = 0;
    size_t gaps = 0;
    while (rc == SQLITE_OK && (rc = sqlite3_step (fresh)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64 (fresh, 0);
        if (gaps < DROVER_SQLITE_GAPS_MAX) {
            gaps += id - low > 1;
            rc = s_read_live (live, low, id, rows, fn, arg);
            rc = rc == SQLITE_DONE? SQLITE_OK: rc;
            low = id;
        }
        fn (fresh, arg);
        (*rows)++;
    }
    if (rc == SQLITE_DONE)
        rc = s_read_live (live, low, INT64_MAX, rows, fn, arg);
    sqlite3_finalize (fresh);
    sqlite3_finalize (live);
    return rc == SQLITE_DONE? SQLITE_OK: rc;
}

//  Read the tasks not final by one query of the 44 columns a task's row
//  has, as loads before state format 7 did; fn on each row
static int
s_read_wide (sqlite3 *db, long long *rows, s_row_fn *fn, void *arg)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2 (db, "SELECT " DROVER_SQLITE_LIVE_COLUMNS " FROM tasks"
                                 " WHERE state < 3 ORDER BY id", -1, &stmt, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        fn (stmt, arg);
        (*rows)++;
        rc = SQLITE_OK;
    }
    sqlite3_finalize (stmt);
    return rc == SQLITE_DONE? SQLITE_OK: rc;
}

//  Open dir's state.db read-only; NULL after saying why
static sqlite3 *
s_open (const char *dir)
{
    char path [PATH_MAX];
    snprintf (path, sizeof path, "%s/state.db", dir);
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_busy_timeout (db, S_BUSY_WAIT);
    if (rc == SQLITE_OK)
        return db;
    fprintf (stderr, "drover bench: restart: cannot open %s: %s\n", path,
             db? sqlite3_errmsg (db): sqlite3_errstr (rc));
    sqlite3_close (db);
    return NULL;
}

//  Read, with SQLite alone, the rows and columns a broker loads from the
//  state in dir by the broker's queries, or (wide) by the 44-column query
//  of before, each value read out. Returns the usec from opening the file
//  to closing it, or -1; *rows_p the rows read.
int64_t
drover_benchmark_read_floor (const char *dir, bool wide, long long *rows_p)
{
    int64_t started = zclock_usecs ();
    sqlite3 *db = s_open (dir);
    long long rows = 0;
    uint64_t sum = 0;
    int rc = !db? SQLITE_CANTOPEN
           : wide? s_read_wide (db, &rows, s_sum_row, &sum)
           : s_read_loaded (db, &rows, s_sum_row, &sum);
    if (db && rc != SQLITE_OK)
        fprintf (stderr, "drover bench: restart: cannot read %s: %s\n", dir, sqlite3_errmsg (db));
    sqlite3_close (db);
    int64_t elapsed = zclock_usecs () - started;
    s_floor_sink = sum;
    *rows_p = rows;
    return rc == SQLITE_OK? elapsed: -1;
}

//  Check the state in dir with SQLite alone as the broker checks it at
//  start (PRAGMA quick_check on a read-only connection). Returns the usec
//  it took, or -1 if it could not run or did not say "ok".
int64_t
drover_benchmark_check_floor (const char *dir)
{
    int64_t started = zclock_usecs ();
    sqlite3 *db = s_open (dir);
    sqlite3_stmt *stmt = NULL;
    int rc = db? sqlite3_prepare_v2 (db, "PRAGMA quick_check (1)", -1, &stmt, NULL)
               : SQLITE_CANTOPEN;
    if (rc == SQLITE_OK)
        rc = sqlite3_step (stmt);
    bool passed = rc == SQLITE_ROW && streq ((const char *) sqlite3_column_text (stmt, 0), "ok");
    if (db && !passed)
        fprintf (stderr, "drover bench: restart: the bare check of %s failed: %s\n", dir,
                 sqlite3_errmsg (db));
    sqlite3_finalize (stmt);
    sqlite3_close (db);
    int64_t elapsed = zclock_usecs () - started;
    return passed? elapsed: -1;
}


//  ---------------------------------------------------------------------
//  The load floor

//  A batch of records the read fills: a uint32 record count, then each
//  record: a uint32 size, its id (int64), then each column's value (a
//  type byte; an int64, or a uint32 size and the bytes)
typedef struct {
    void *socket;                   //  PAIR to assign
    byte *data;                     //  the batch being filled, handed to assign when full
    size_t size;                    //  bytes used
    size_t room;                    //  bytes allocated
    uint32_t records;               //  records in it
    int rc;                         //  0, or -1 if a send failed
} s_batch_t;

//  Make room for more bytes in the batch
static void
s_batch_reserve (s_batch_t *self, size_t more)
{
    if (self->size + more <= self->room)
        return;
    while (self->size + more > self->room)
        self->room = self->room? self->room * 2: 256 * 1024;
    self->data = (byte *) realloc (self->data, self->room);
    assert (self->data);
}

//  Append bytes to the batch
static void
s_batch_put (s_batch_t *self, const void *bytes, size_t size)
{
    s_batch_reserve (self, size);
    memcpy (self->data + self->size, bytes, size);
    self->size += size;
}

//  Hand the batch to assign (its pointer: assign owns it now) and start
//  the next, its record count first
static void
s_batch_send (s_batch_t *self)
{
    memcpy (self->data, &self->records, sizeof self->records);
    if (zmq_send (self->socket, &self->data, sizeof self->data, 0) != (int) sizeof self->data) {
        self->rc = -1;
        free (self->data);
    }
    self->data = NULL;
    self->room = 0;
    self->size = 0;
    self->records = 0;
    s_batch_put (self, &self->records, sizeof self->records);
}

//  Copy a row's values into a record of the batch; send a full batch
static void
s_copy_row (sqlite3_stmt *stmt, void *arg)
{
    s_batch_t *self = (s_batch_t *) arg;
    size_t start = self->size;
    uint32_t size = 0;
    s_batch_put (self, &size, sizeof size);
    int64_t id = sqlite3_column_int64 (stmt, 0);
    s_batch_put (self, &id, sizeof id);
    int columns = sqlite3_column_count (stmt);
    for (int column = 1; column < columns; column++) {
        byte type = (byte) sqlite3_column_type (stmt, column);
        s_batch_put (self, &type, 1);
        if (type == SQLITE_INTEGER) {
            int64_t value = sqlite3_column_int64 (stmt, column);
            s_batch_put (self, &value, sizeof value);
        }
        else
        if (type == SQLITE_TEXT || type == SQLITE_BLOB) {
            const void *bytes = type == SQLITE_TEXT
                              ? (const void *) sqlite3_column_text (stmt, column)
                              : sqlite3_column_blob (stmt, column);
            uint32_t length = (uint32_t) sqlite3_column_bytes (stmt, column);
            s_batch_put (self, &length, sizeof length);
            s_batch_put (self, bytes, length);
        }
    }
    size = (uint32_t) (self->size - start - sizeof size);
    memcpy (self->data + start, &size, sizeof size);
    if (++self->records == S_BATCH)
        s_batch_send (self);
}

//  The assign thread: its sockets, the records it keeps by id and the
//  batches that hold them
typedef struct {
    void *in;                       //  PAIR from the read
    void *out;                      //  PAIR to schedq
    byte **slots;                   //  each kept record (its id first), open addressing
    size_t nslots;                  //  a power of two, at least twice the rows
    size_t kept;
    byte **batches;                 //  the batches taken, freed at the end
    size_t nbatches;
    size_t room;
    int rc;
} s_assign_t;

//  Keep a record, where it is, under its id
static void
s_assign_keep (s_assign_t *self, byte *record)
{
    uint64_t id;
    memcpy (&id, record, sizeof id);
    size_t mask = self->nslots - 1;
    size_t index = (size_t) (id * 0x9E3779B97F4A7C15ull >> 20) & mask;
    while (self->slots [index])
        index = (index + 1) & mask;
    self->slots [index] = record;
    self->kept++;
}

//  Take each batch: keep its records, send their ids on to schedq; an
//  empty message ends it, and is passed on
static void *
s_assign (void *args)
{
    s_assign_t *self = (s_assign_t *) args;
    uint64_t ids [S_BATCH];
    while (self->rc == 0) {
        byte *data = NULL;
        int size = zmq_recv (self->in, &data, sizeof data, 0);
        if (size == 0) {
            if (zmq_send (self->out, "", 0, 0) < 0)
                self->rc = -1;
            break;
        }
        if (size != (int) sizeof data) {
            self->rc = -1;
            break;
        }
        if (self->nbatches == self->room) {
            self->room = self->room? self->room * 2: 1024;
            self->batches = (byte **) realloc (self->batches, self->room * sizeof (byte *));
            assert (self->batches);
        }
        self->batches [self->nbatches++] = data;
        uint32_t count, length;
        memcpy (&count, data, sizeof count);
        size_t at = sizeof count;
        for (uint32_t record = 0; record < count && record < S_BATCH; record++) {
            memcpy (&length, data + at, sizeof length);
            at += sizeof length;
            s_assign_keep (self, data + at);
            memcpy (&ids [record], data + at, sizeof ids [0]);
            at += length;
        }
        if (zmq_send (self->out, ids, count * sizeof ids [0], 0) < 0)
            self->rc = -1;
    }
    return NULL;
}

//  The schedq thread: its socket and the queue of ids, in order
typedef struct {
    void *in;                       //  PAIR from assign
    uint64_t *queue;
    size_t queued;
    size_t room;
    int rc;
} s_schedq_t;

//  Queue each id that comes, until an empty message
static void *
s_schedq (void *args)
{
    s_schedq_t *self = (s_schedq_t *) args;
    uint64_t ids [S_BATCH];
    while (true) {
        int size = zmq_recv (self->in, ids, sizeof ids, 0);
        if (size < 0) {
            self->rc = -1;
            break;
        }
        if (size == 0)
            break;
        size_t count = (size_t) size / sizeof ids [0];
        if (self->queued + count > self->room) {
            self->room = self->room? self->room * 2: 65536;
            self->queue = (uint64_t *) realloc (self->queue, self->room * sizeof ids [0]);
            assert (self->queue);
        }
        memcpy (self->queue + self->queued, ids, count * sizeof ids [0]);
        self->queued += count;
    }
    return NULL;
}

//  The check on a thread of its own: its directory and what it took
typedef struct {
    const char *dir;
    int64_t usecs;                  //  -1 if it failed
} s_check_t;

//  Run the check
static void *
s_check (void *args)
{
    s_check_t *self = (s_check_t *) args;
    self->usecs = drover_benchmark_check_floor (self->dir);
    return NULL;
}

//  Restart the state in dir as the design does at the least, with SQLite
//  and libzmq alone: the check beside the read, each row copied into a
//  record, the records to an assign thread that keeps them by id, their
//  ids to a schedq thread that queues them. expected rows are looked for
//  (the hash is sized for them). Returns the usec from the start to both
//  the check and the queue done, or -1; *rows_p the rows queued.
int64_t
drover_benchmark_load_floor (const char *dir, long long expected, long long *rows_p)
{
    void *context = zmq_ctx_new ();
    s_batch_t batch = { zmq_socket (context, ZMQ_PAIR), NULL, 0, 0, 0, 0 };
    s_assign_t assign = { zmq_socket (context, ZMQ_PAIR), zmq_socket (context, ZMQ_PAIR),
                          NULL, 1024, 0, NULL, 0, 0, 0 };
    s_schedq_t schedq = { zmq_socket (context, ZMQ_PAIR), NULL, 0, 0, 0 };
    while (assign.nslots < 2 * (size_t) (expected > 0? expected: 1))
        assign.nslots *= 2;
    assign.slots = (byte **) calloc (assign.nslots, sizeof (byte *));
    assert (assign.slots);
    int timeout = S_TIMEOUT;                //  a send never waits for a thread that died
    zmq_setsockopt (batch.socket, ZMQ_SNDTIMEO, &timeout, sizeof timeout);
    zmq_setsockopt (assign.out, ZMQ_SNDTIMEO, &timeout, sizeof timeout);
    int rc = zmq_bind (assign.in, S_ASSIGN) == 0 && zmq_connect (batch.socket, S_ASSIGN) == 0
          && zmq_bind (schedq.in, S_SCHEDQ) == 0 && zmq_connect (assign.out, S_SCHEDQ) == 0
           ? 0: -1;
    s_check_t check = { dir, -1 };
    pthread_t threads [3];
    size_t started = 0;
    int64_t start = zclock_usecs ();
    void *(*bodies [3]) (void *) = { s_check, s_assign, s_schedq };
    void *args [3] = { &check, &assign, &schedq };
    for (size_t index = 0; rc == 0 && index < 3; index++)
        if (pthread_create (&threads [index], NULL, bodies [index], args [index]) == 0)
            started++;
        else
            rc = -1;
    long long rows = 0;
    s_batch_put (&batch, &batch.records, sizeof batch.records);
    sqlite3 *db = rc? NULL: s_open (dir);
    if (db && s_read_loaded (db, &rows, s_copy_row, &batch) != SQLITE_OK)
        rc = -1;
    sqlite3_close (db);
    if (batch.records)
        s_batch_send (&batch);
    //  The end, after the last batch; the threads end on it (or on the
    //  context's shutdown, if it could not go)
    if (zmq_send (batch.socket, "", 0, 0) != 0 || !db)
        zmq_ctx_shutdown (context);
    for (size_t index = 0; index < started; index++)
        pthread_join (threads [index], NULL);
    int64_t elapsed = zclock_usecs () - start;
    *rows_p = (long long) schedq.queued;
    bool failed = rc || batch.rc || assign.rc || schedq.rc || check.usecs < 0 || started < 3
               || assign.kept != schedq.queued;
    for (size_t index = 0; index < assign.nbatches; index++)
        free (assign.batches [index]);
    free (assign.batches);
    free (assign.slots);
    free (schedq.queue);
    free (batch.data);
    int linger = 0;
    void *sockets [] = { batch.socket, assign.in, assign.out, schedq.in };
    for (size_t index = 0; index < 4; index++) {
        zmq_setsockopt (sockets [index], ZMQ_LINGER, &linger, sizeof linger);
        zmq_close (sockets [index]);
    }
    zmq_ctx_term (context);
    return failed? -1: elapsed;
}
