/*  =========================================================================
    drover_store - where the store keeps the broker's state: a small
    interface (open, apply a batch, load) and its backends

    The store actor (actors/drover_store_actor.c) is the backend's only user: it
    opens one at start, loads what was kept, then applies one batch per
    turn of its loop, holding every change said since the last (group
    commit, never one transaction per task). apply returns only once the
    batch is durable (committed and fsync'd) or not kept at all: a batch
    is all or nothing. A networked database (for high availability) is
    one more backend behind the same functions; the actors do not change.

    Backends:
      sqlite  a directory holding one SQLite file (state.db), in WAL mode,
              synchronous=FULL: the embedded default
      postgresql  tables in a PostgreSQL database (a libpq URI), shared by
              the brokers of a cluster: one leader writes at a time, made
              sure of by fencing (below)
      memory  keeps nothing (durability off): apply and load do nothing,
              no state id (it names no state), ids start at 1

    Fencing (postgresql): a leader opens the backend with its fencing
    token (its election's revision: a later leader's is higher). Open
    raises the database's token to ours, refused if it holds a higher
    one; every later write transaction is refused, nothing of it kept, if
    the database's token is no longer ours. A deposed leader that wakes
    up after a pause thus cannot change the state its successor serves.

    A plain class: no threads. Errors come back as text naming the file
    and what to do; a backend never starts empty over state it cannot read.
    =========================================================================
*/

#ifndef DROVER_STORE_H_INCLUDED
#define DROVER_STORE_H_INCLUDED

#include <czmq.h>
#include "drover_change.h"
#include "drover_sqlbackup.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_store_t drover_store_t;

#define DROVER_STORE_ERROR_MAX    512     //  bytes of an error text, at most

//  What a backend keeps besides tasks and events
typedef struct {
    char state [DROVER_STATE_ID_SIZE + 1];  //  state id: 32 hex digits, made when the
                                            //  state was created, never changed
    uint64_t next_task;             //  first task id never given out (from 1)
    uint64_t next_seq;              //  first event seq never given out (from 1)
} drover_store_meta_t;

//  An operator's setting of a worker, kept by worker id (schedq's
//  drover_adminbook): strings borrowed
typedef struct {
    const char *worker;             //  worker id
    int admin;                      //  drover_admin_t: HOLD or DRAIN (RUN: none kept)
    uint32_t flags;                 //  DROVER_ADMIN_* flags
    const char *reason;             //  the operator's reason, "" if none
    uint64_t since;                 //  when it was set, msec since the epoch
} drover_store_admin_t;

//  What load_admin hands over for each kept setting (borrowed). Returns 0,
//  or -1 to stop.
typedef int (drover_store_admin_fn) (void *arg, const drover_store_admin_t *admin);

//  A share kept by name (schedq's SHARE ADMIN settings: an account or an
//  owner), strings borrowed
typedef struct {
    const char *name;               //  the account's or owner's name (an id)
    uint32_t weight;                //  its weight, >= 1 (save: 0 deletes the row)
    const char *members;            //  an account's members, comma-separated; NULL: not
                                    //  an account (an owner)
    const char *quota;              //  its quotas, sharespec quota text
                                    //  ("procs=8,mem=1G,gpu=2,queued=10"), "" none
} drover_store_share_t;

//  What load_shares hands over for each kept share (borrowed). Returns 0,
//  or -1 to stop.
typedef int (drover_store_share_fn) (void *arg, const drover_store_share_t *share);

//  What load_services hands over for each kept service: its name and
//  definition (an encoded SERVICE ADMIN create, opaque here), borrowed.
//  Returns 0, or -1 to stop.
typedef int (drover_store_service_fn) (void *arg, const char *name, const byte *def,
                                         size_t size);

//  What load hands over for each kept task: the change (*change_p) is the
//  callee's from then on (it sets it NULL). Returns 0, or -1 to stop.
typedef int (drover_store_task_fn) (void *arg, drover_change_t **change_p);

//  What replay hands over for each event, in seq order (borrowed). Returns
//  0, or -1 to stop.
typedef int (drover_store_event_fn) (void *arg, const drover_event_t *event);

//  Open the SQLite backend on dir (made if missing, mode 0700, with a new
//  state id). Returns NULL with *error_p set (a message naming the file
//  and what to do; caller frees with zstr_free) if dir cannot be made or
//  read, or the file is not a drover state or is corrupt, or another
//  process (broker) has it open: the file stays locked until destroy.
drover_store_t *
    drover_store_open_sqlite (const char *dir, char **error_p);

//  Open the PostgreSQL backend on conninfo (a libpq URI "postgresql://..." or
//  "postgres://..."; tables made if missing, a new state id if none). With fence > 0
//  it first claims the state for that fencing token in one transaction: refused
//  (NULL, *error_p "fenced: the state is held by a newer leader (token N > fence)")
//  if the database holds a higher token. Every later transaction (apply, prune,
//  save_admin, save_service) is refused, and nothing of it kept, if the database's
//  token is no longer this one: the function returns -1, error says "fenced: ...",
//  and drover_store_fenced () is true from then on. fence 0 claims and checks
//  nothing (one broker alone on the database). Other errors name the server
//  (never a password): a bad URI, a server that cannot be reached, a database
//  holding something else. A write that fails because the server went away is
//  refused like any failed batch; the next call connects again. Every call waits
//  at most 10 s for a silent server.
drover_store_t *
    drover_store_open_postgres (const char *conninfo, uint64_t fence, char **error_p);

//  True if this backend was refused by fencing (a newer leader holds the state):
//  its owner must stop serving. Always false for sqlite and memory.
bool
    drover_store_fenced (drover_store_t *self);

//  Return true if text names a PostgreSQL state ("postgresql://" or "postgres://")
bool
    drover_store_is_postgres (const char *text);

//  Return true if format is a back end's format marker, "NAME N", of the
//  same NAME as ours ("drover-state 6") and a number past ours: a newer
//  broker wrote that state. Numbers compare as numbers (leading zeros too).
bool
    drover_store_format_newer (const char *format, const char *ours);

//  Return state (a state directory or a PostgreSQL URI) fit for a log: a
//  URI's password, if it holds one, replaced by "***". Ours: zstr_free.
char *
    drover_store_printable (const char *state);

//  Open the memory backend: keeps nothing, no state id
drover_store_t *
    drover_store_open_memory (void);

//  Close the backend; harmless on NULL
void
    drover_store_destroy (drover_store_t **self_p);

//  Return the backend's name: "sqlite", "postgresql" or "memory"
const char *
    drover_store_name (drover_store_t *self);

//  Return what the backend keeps besides tasks and events (borrowed; apply
//  moves next_task and next_seq on past the batch's)
const drover_store_meta_t *
    drover_store_meta (drover_store_t *self);

//  Apply one batch, in order, in one transaction: each change is an event
//  to keep (seq set, ascending), and a change about a task sets its row
//  (a submit attached: the task is new; a done attached: its result). A
//  final task's row is final: later changes to it are events only.
//  Changes to one task within a batch may be merged into one write.
//  Returns 0 once durable, or -1 with error (size error_size) set, and
//  then nothing of the batch is kept (disk full, I/O error...); a later
//  apply may succeed. Borrows the changes.
int
    drover_store_apply (drover_store_t *self, drover_change_t **changes, size_t count,
                          char *error, size_t error_size);

//  Ask the next loads to hand a plain QUEUED task (no workflow, array,
//  service, affinity, begin nor retry delay) as its record (the change's
//  record, see drover_change.h) rather than a TASK SUBMIT, where the
//  backend can (SQLite): a restart's million tasks make no message each
void
    drover_store_set_records (drover_store_t *self, bool records);

//  Load every kept task that is not final, and the newest max_final final
//  ones (by when they ended), each as a change (topic "task.restored",
//  state, attempt, worker, retries_left, lost, waits, due_at, group, made,
//  owner and assigned set, time = when submitted, seq 0; the submit
//  attached with its key, its owner as principal, its after list, begin,
//  retry delays, array, flags and devices, the done attached if final)
//  handed to fn, oldest id first. Returns the number loaded, or -1 with
//  error set (a corrupt file: the caller must not start).
int64_t
    drover_store_load (drover_store_t *self, size_t max_final, drover_store_task_fn *fn,
                         void *arg, char *error, size_t error_size);

//  Read one kept task by id, final or not, as load makes it (a change
//  "task.restored" with its submit, and its done if final) into *change_p
//  (the caller's). Returns 1, 0 if the task is not kept (never, or pruned;
//  the memory backend keeps none), or -1 with error set.
int
    drover_store_read_task (drover_store_t *self, uint64_t id, drover_change_t **change_p,
                              char *error, size_t error_size);

//  Hand fn the kept events with seq > since, in order, at most max of
//  them. Returns the number handed, or -1 with error set.
int64_t
    drover_store_replay (drover_store_t *self, uint64_t since, size_t max,
                           drover_store_event_fn *fn, void *arg,
                           char *error, size_t error_size);

//  Delete, at most max_rows rows a call (one transaction), final tasks
//  past the newest keep_count (by when they ended) or ended more than
//  keep_age msec before now (wall msec), then events older than the
//  oldest kept task's first event or past the newest keep_events. The
//  bounds are literal: keep_count 0 keeps no final task, keep_events 0 no
//  event; UINT64_MAX does not bound. Tasks not final are never deleted.
//  The sqlite backend keeps events in rows of up to 1024 (of one batch),
//  deleted whole: a row goes once all its events may. Costs no scan of
//  what is kept. Returns the rows deleted (0: nothing left to prune; call
//  again while > 0), or -1 with error set.
int64_t
    drover_store_prune (drover_store_t *self, uint64_t keep_count, uint64_t keep_age,
                          uint64_t keep_events, uint64_t now, size_t max_rows,
                          char *error, size_t error_size);

//  Keep an operator's setting of a worker at once, in its own transaction
//  (settings are few and rare), replacing the one kept for that worker;
//  admin RUN deletes it. The memory backend keeps nothing. Returns 0 once
//  durable, or -1 with error set.
int
    drover_store_save_admin (drover_store_t *self, const drover_store_admin_t *admin,
                               char *error, size_t error_size);

//  Hand fn every kept setting, in worker id order. Returns the number
//  handed, or -1 with error set.
int64_t
    drover_store_load_admin (drover_store_t *self, drover_store_admin_fn *fn, void *arg,
                               char *error, size_t error_size);

//  Keep a service's definition at once, in its own transaction (services
//  are few and change rarely), replacing the one kept under its name; an
//  empty definition (size 0) deletes it. The memory backend keeps nothing.
//  Returns 0 once durable, or -1 with error set.
int
    drover_store_save_service (drover_store_t *self, const char *name, const byte *def,
                                 size_t size, char *error, size_t error_size);

//  Hand fn every kept service, in name order. Returns the number handed,
//  or -1 with error set.
int64_t
    drover_store_load_services (drover_store_t *self, drover_store_service_fn *fn,
                                  void *arg, char *error, size_t error_size);

//  Keep a share at once, in its own transaction (shares are few and
//  rare), replacing the one kept under its name; weight 0 deletes it. The
//  memory backend keeps nothing. Returns 0 once durable, or -1 with error
//  set (fenced like every write on PostgreSQL).
int
    drover_store_save_share (drover_store_t *self, const drover_store_share_t *share,
                               char *error, size_t error_size);

//  Hand fn every kept share, in name order. Returns the number handed, or
//  -1 with error set.
int64_t
    drover_store_load_shares (drover_store_t *self, drover_store_share_fn *fn, void *arg,
                                char *error, size_t error_size);

//  Start an online copy of the state into path, a new file on this host
//  (an absolute path), that a broker can open as its state: the sqlite
//  backend copies its file a step at a time (drover_sqlbackup_step) while
//  the store goes on applying batches, each written into the copy too.
//  Returns the copy (the caller's), or NULL with error set and *code_p the
//  wire status: 400 path not absolute, taken or not writable; 415 the
//  memory backend (durability off: nothing to back up); 503 PostgreSQL
//  (pg_dump backs it up); 500 SQLite refused
drover_sqlbackup_t *
    drover_store_backup (drover_store_t *self, const char *path, int *code_p,
                         char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
