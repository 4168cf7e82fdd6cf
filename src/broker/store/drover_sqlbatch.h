/*  =========================================================================
    drover_sqlbatch - a batch of state changes grouped by task, for the
    backends that write one row a task (SQLite, PostgreSQL)

    A batch may hold several changes of one task (its submit, its start,
    its result): a backend writes the task once, from the last of them,
    inserting it if the batch submitted it. The grouping is a hash of the
    batch's task ids (open addressing), sized for the largest batch met,
    and remembers the order tasks were first met in.
    =========================================================================
*/

#ifndef DROVER_SQLBATCH_H_INCLUDED
#define DROVER_SQLBATCH_H_INCLUDED

#include "drover_change.h"
#include "drover_devicelist.h"

#ifdef __cplusplus
extern "C" {
#endif

//  One task met in a batch
typedef struct {
    uint64_t task;                  //  task id, 0: free slot
    int64_t submit;                 //  index of the change with its submit, -1 none
    int64_t done;                   //  index of the last change with a result, -1 none
    int64_t last;                   //  index of its last change
} drover_sqlbatch_task_t;

typedef struct _drover_sqlbatch_t drover_sqlbatch_t;

//  The task columns as a backend's load reads them, in this order: the
//  same in both backends, so that each reads a task's row alike
#define DROVER_SQLBATCH_TASK_COLUMNS \
    "id, key, state, attempt, worker, retries_left, lost, submitted, ended," \
    " priority, procs, mem, timeout, retries, flags, labels, body," \
    " outcome, exit_code, signal, duration, truncated, reason, out, err, owner," \
    " offered, started, last_outcome, history, service, slot, affinity," \
    " \"after\", \"begin\", retry_delay, retry_max_delay, \"array\", waits, due, grp, made," \
    " devices, assigned"

//  A submit's after list packed as the after column holds it: 9 bytes an
//  entry, its kind then its task id big-endian
#define DROVER_SQLBATCH_AFTER_ENTRY 9
#define DROVER_SQLBATCH_AFTER_MAX   (DROVER_AFTER_MAX * DROVER_SQLBATCH_AFTER_ENTRY)
//  A submit's array packed as the array column holds it: first, step,
//  count, limit, 4 bytes each big-endian
#define DROVER_SQLBATCH_ARRAY_SIZE  16

//  A fresh task's small submit fields packed as the fresh column (format
//  7 of the SQLite state) holds them: what its record needs besides its
//  id, key, owner, submit time and body, which have columns of their own.
//  A byte of flags (which of mem, timeout, retries, flags, labels and
//  devices follow; the high bit: priority 0 and procs 1), the priority
//  (zigzag) and procs unless that bit is set, then those that are there:
//  numbers as varints, texts NUL-ended. A plain command packs in 1 byte,
//  DROVER_SQLBATCH_FRESH_PLAIN.
#define DROVER_SQLBATCH_FRESH_PLAIN 0x80
#define DROVER_SQLBATCH_FRESH_MAX \
    (1 + 4 * 5 + 10 + DROVER_LABELS_MAX * (DROVER_LABEL_MAX + 1) \
     + DROVER_DEVICELIST_TEXT_MAX)

//  Create an empty grouping
drover_sqlbatch_t *
    drover_sqlbatch_new (void);

//  Destroy it; harmless on NULL
void
    drover_sqlbatch_destroy (drover_sqlbatch_t **self_p);

//  Group count changes by task (those of no task are skipped), forgetting
//  the grouping before. Returns the number of tasks met.
size_t
    drover_sqlbatch_group (drover_sqlbatch_t *self, drover_change_t **changes, size_t count);

//  The index-th task of the last grouping, in the order first met
const drover_sqlbatch_task_t *
    drover_sqlbatch_at (drover_sqlbatch_t *self, size_t index);

//  Join a submit's labels into text, one a line, as the labels column
//  holds them; cut to fit size. Returns the text's length (0: no labels,
//  text untouched).
size_t
    drover_sqlbatch_labels_join (const drover_msg_t *submit, char *text, size_t size);

//  Add the labels of a labels column's text (one a line; NULL or "":
//  none) to a submit, up to DROVER_LABELS_MAX
void
    drover_sqlbatch_labels_split (drover_msg_t *submit, const char *text);

//  Pack a submit's after list into data (DROVER_SQLBATCH_AFTER_MAX bytes
//  at least). Returns the bytes packed, 0 if it has none (the column is
//  NULL).
size_t
    drover_sqlbatch_after_pack (const drover_msg_t *submit, byte *data);

//  Set a submit's after list (allocated, owned by the submit) from an
//  after column's bytes (NULL or 0 bytes: none). Returns 0, or -1 if they
//  are not a packed list (size, count or kind out of bounds), the submit
//  untouched.
int
    drover_sqlbatch_after_unpack (drover_msg_t *submit, const byte *data, size_t size);

//  Pack a submit's array into data (DROVER_SQLBATCH_ARRAY_SIZE bytes).
//  Returns the bytes packed, 0 if it is not an array (the column is NULL).
size_t
    drover_sqlbatch_array_pack (const drover_msg_t *submit, byte *data);

//  Set a submit's array from an array column's bytes (NULL or 0 bytes:
//  none). Returns 0, or -1 if they are not a packed array, the submit
//  untouched.
int
    drover_sqlbatch_array_unpack (drover_msg_t *submit, const byte *data, size_t size);

//  Set a submit's devices from a devices column's text (canonical device
//  list text, drover_devicelist_format; NULL or "": none). Returns 0, or
//  -1 if it is not a device list, the submit untouched.
int
    drover_sqlbatch_devices_unpack (drover_msg_t *submit, const char *text);

//  Pack a submit's small fields into data (DROVER_SQLBATCH_FRESH_MAX bytes
//  at least). Returns the bytes packed.
size_t
    drover_sqlbatch_fresh_pack (const drover_msg_t *submit, byte *data);

//  Set an empty submit's small fields (labels allocated, owned by the
//  submit) from a fresh column's bytes. Returns 0, or -1 if they are not a
//  packed submit (cut short, an unknown flag, a number or text out of
//  bounds).
int
    drover_sqlbatch_fresh_unpack (drover_msg_t *submit, const byte *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif
