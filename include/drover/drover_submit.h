/*  =========================================================================
    drover_submit - a task to submit: its command and what it asks for

    Built from a command line (argv) with default settings (1 proc, no
    memory asked, priority 0, no timeout, no retries), then set before
    drover_client_submit or drover_client_submit_async sends it; one
    submit may be sent many times (each send is a new task, unless it has
    a key). The client writes the request's number into it when it sends.
    =========================================================================
*/

#ifndef DROVER_SUBMIT_H_INCLUDED
#define DROVER_SUBMIT_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_submit_t drover_submit_t;

//  Create a submit that runs argv (argc >= 1). NULL if argv breaks a limit.
drover_submit_t *
    drover_submit_new (int argc, const char **argv);

//  Destroy a submit; harmless on NULL
void
    drover_submit_destroy (drover_submit_t **self_p);

//  Set the priority: lower runs first (default 0)
void
    drover_submit_set_priority (drover_submit_t *self, int32_t priority);

//  Set the procs the task takes on its worker (>= 1, default 1)
void
    drover_submit_set_procs (drover_submit_t *self, uint32_t procs);

//  Set the memory the task takes on its worker, bytes (default 0: any)
void
    drover_submit_set_mem (drover_submit_t *self, uint64_t mem);

//  Set the task's timeout, msec (default 0: none)
void
    drover_submit_set_timeout (drover_submit_t *self, uint32_t msec);

//  Set how many times a failed task runs again (default 0)
void
    drover_submit_set_retries (drover_submit_t *self, uint32_t retries);

//  Add a "key=value" label a worker must have (copied). Returns 0, or -1
//  if it is not one or the submit has 16 already.
int
    drover_submit_add_label (drover_submit_t *self, const char *label);

//  Ask (true) for the task's result without a wait: the broker sends it
//  when the task ends, to the client's done handler (or a later wait)
void
    drover_submit_set_notify (drover_submit_t *self, bool notify);

//  Set the submit key (copied), or clear it with NULL. A key makes the
//  submit idempotent: the broker answers a submit whose key it holds with
//  the task id it gave that key first, so the client may send it again.
//  drover_client_submit and submit_async keep keyed submits and send them
//  again (same seq, same key) after each resend interval of silence, until
//  their reply or the timeout; a submit without a key is never sent twice.
//  Returns 0, or -1 if the key is not 1..128 bytes of printable ASCII.
int
    drover_submit_set_key (drover_submit_t *self, const char *key);

//  Set the affinity key (1..128 printable bytes; NULL none): the broker
//  prefers workers in rendezvous order of the key. Returns 0, or -1 if the
//  key is not one.
int
    drover_submit_set_affinity (drover_submit_t *self, const char *key);

//  Wait for task to end before this one is queued (an array's or a
//  workflow's id: for all its members): kind DROVER_AFTER_OK (it must
//  succeed), DROVER_AFTER_ANY (it must end, however) or DROVER_AFTER_FAIL
//  (it must end, not succeeded). A task whose condition can no longer be
//  met ends CANCELLED (end DEPENDENCY). Needs a broker of level 3.
//  Returns 0, or -1 for an unknown kind, task 0, or past 1024 parents.
int
    drover_submit_add_after (drover_submit_t *self, int kind, uint64_t task);

//  Start no earlier than msec since the epoch (default 0: at once). Needs
//  a broker of level 3.
void
    drover_submit_set_begin (drover_submit_t *self, uint64_t msec);

//  Space the retries: the first waits delay msec, each next one twice the
//  last, at most max_delay (0: the broker's default, 10 minutes), each
//  jittered by up to 20% (default 0: retry at once). Needs a broker of
//  level 3 when delay > 0.
void
    drover_submit_set_retry_delay (drover_submit_t *self, uint32_t delay, uint32_t max_delay);

//  Make the submit an array: one task per index first, first + step, ...
//  (count of them), each with DROVER_ARRAY_ID and DROVER_ARRAY_INDEX in
//  its environment, at most limit of them queued or running at once (0:
//  no limit). The submit's id is the array's. Needs a broker of level 3.
//  Returns 0, or -1 if count is 0 or past 10,000,000, step is 0, or the
//  last index would pass 2^32 - 1.
int
    drover_submit_set_array (drover_submit_t *self, uint32_t first, uint32_t step,
                             uint32_t count, uint32_t limit);

//  Name the task's owner (an id: printable, no spaces, 1..64 bytes; NULL or
//  "" none), whom fair share and quotas count it under. Without CURVE it
//  is a label for fairness, not a security boundary; with CURVE the
//  broker takes the key's name instead. Left out for a broker below level
//  4 (it has no fair share). Returns 0, or -1 if it is not an id.
int
    drover_submit_set_owner (drover_submit_t *self, const char *owner);

//  Ask count (1..1000000) of the counted device name (1..32 of a-z 0-9 _,
//  e.g. "gpu") on the task's worker; asking a name again sets its count.
//  Needs a broker of level 4. Returns 0, or -1 for an invalid name or
//  count, or past 16 names.
int
    drover_submit_add_device (drover_submit_t *self, const char *name, uint32_t count);

//  Let the broker stop the task to make room for others (true), queueing it
//  again at its place without using up a retry (default false). Needs a
//  broker of level 4 when true.
void
    drover_submit_set_preemptible (drover_submit_t *self, bool preemptible);

#ifdef __cplusplus
}
#endif

#endif
