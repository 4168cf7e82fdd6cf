/*  =========================================================================
    drover_refusals - which refusals the broker writes to its log

    The broker refuses peers at the handshake (no key, an unknown key, a
    wrong server key) and by message (a key's role, its pinned ids). The
    operator must see who is refused and why, but a refused peer tries
    again every few hundred msec, and many may at once. Each refusal has a
    subject (what identifies it: the key or address and the reason): the
    first refusal of a subject is logged, then one every DROVER_REFUSALS_
    EVERY msec with how many were held back since; and at most
    DROVER_REFUSALS_BURST subjects are logged per second, the rest counted
    until the next line that is logged. A plain class called with `now`
    (msec, monotonic): no threads, no I/O, no clock.
    =========================================================================
*/

#ifndef DROVER_REFUSALS_H_INCLUDED
#define DROVER_REFUSALS_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DROVER_REFUSALS_EVERY   10000   //  msec between two lines of one subject
#define DROVER_REFUSALS_BURST   10      //  lines per second at most
#define DROVER_REFUSALS_KEPT    1024    //  subjects remembered at most

typedef struct _drover_refusals_t drover_refusals_t;

//  Create an empty record
drover_refusals_t *
    drover_refusals_new (void);

//  Destroy; harmless on NULL
void
    drover_refusals_destroy (drover_refusals_t **self_p);

//  A refusal of subject happened at now. Returns true if it is to be
//  logged, with *held_p the refusals held back since the last line logged
//  (of this subject, and of those the burst limit held back); false if it
//  is held back (counted).
bool
    drover_refusals_due (drover_refusals_t *self, const char *subject, int64_t now,
                         uint64_t *held_p);

//  Return the refusals ever noted
uint64_t
    drover_refusals_count (drover_refusals_t *self);

#ifdef __cplusplus
}
#endif

#endif
