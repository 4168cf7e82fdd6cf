/*  =========================================================================
    drover_conns - the broker's TCP connections against its file
    descriptors: what each connection is, which must go, and when

    libzmq accepts every connection it can; when accept() fails for want
    of descriptors it retries at once, forever (its I/O thread spins and
    nobody can connect). So the broker decides what each connection it
    accepted may do, and cuts those that must go before the descriptors
    run out (docs/operating.md, "Bounds and connections"):

    - `limit` connections are served at most; `reserve` of them only to
      members (a registered worker, an admin key): strangers (every other
      peer) have the rest, and never the last descriptors.
    - A stranger that has said nothing valid is SILENT: it is cut after
      the silent time (drover_conns_set_silent), or at once when a
      newcomer needs its place (the oldest silent goes first). Once it
      says something valid it is a CLIENT and stays.
    - A newcomer that finds no place for strangers, but one within the
      limit, is on TRIAL: it stays only if it becomes a member, and is cut
      after `grace` msec otherwise, or `told` msec after it was refused.
    - One past the limit is EXCESS: refused, and cut after the grace, or
      at once when excess connections eat half the `spare` descriptors.
    - `per_address` (if not 0) strangers from one address at most: a
      newcomer past it is on trial.

    Connections are known by descriptor, with the peer's address and port
    so that a descriptor reused since is told apart. Deadlines sit in four
    queues, each in the order of its deadlines (a fixed delay added to a
    clock that only moves forward), so each step costs O(1) amortized.
    A plain class: no threads, no I/O; `now` is msec, monotonic.
    =========================================================================
*/

#ifndef DROVER_CONNS_H_INCLUDED
#define DROVER_CONNS_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_conns_t drover_conns_t;

//  What a connection is to the broker
typedef enum {
    DROVER_CONN_NONE,           //  no connection known on that descriptor
    DROVER_CONN_SILENT,         //  a stranger that has said nothing valid yet
    DROVER_CONN_CLIENT,         //  a stranger that has, or that listens only (events)
    DROVER_CONN_MEMBER,         //  a registered worker, or an admin key
    DROVER_CONN_TRIAL,          //  no place for strangers was left: stays as a member only
    DROVER_CONN_EXCESS,         //  past the limit, or a silent one evicted: to be cut
    DROVER_CONN_CUT,            //  cut: open until libzmq closes it
    DROVER_CONN_CLASSES
} drover_conn_class_t;

//  Why connections went (drover_conns_gone)
typedef enum {
    DROVER_CONNS_SILENT,        //  said nothing valid within the silent time
    DROVER_CONNS_EVICTED,       //  silent, and its place went to a newcomer
    DROVER_CONNS_REFUSED,       //  excess, or on trial and not a member
    DROVER_CONNS_LOST,          //  closed, and libzmq did not say so: found gone
    DROVER_CONNS_REASONS
} drover_conns_reason_t;

//  The limits, in connections and msec
typedef struct {
    int fd_limit;               //  descriptors are below it
    size_t limit;               //  connections served at most (1 or more)
    size_t reserve;             //  of those, kept for members (less than limit)
    size_t spare;               //  excess connections open at most, about
    size_t per_address;         //  strangers from one address at most; 0: no cap
    int grace;                  //  msec a trial or excess connection stays, at most
    int told;                   //  msec a refused connection stays once told why
} drover_conns_rules_t;

//  Is one connection still the one counted (drover_conns_audit): the
//  caller looks at the descriptor
typedef bool (drover_conns_check_fn) (int fd, const char *address, int port, void *arg);

//  Create with the rules (copied); silent connections are not cut until
//  drover_conns_set_silent turns it on
drover_conns_t *
    drover_conns_new (const drover_conns_rules_t *rules);

//  Destroy; harmless on NULL
void
    drover_conns_destroy (drover_conns_t **self_p);

//  A connection was accepted on fd at now, from address ("" unknown) and
//  port. A listener (an event subscriber, whose words the broker cannot
//  tell apart) is never silent. Returns its class: SILENT or CLIENT if
//  served as a stranger, TRIAL or EXCESS if not.
drover_conn_class_t
    drover_conns_accepted (drover_conns_t *self, int fd, const char *address, int port,
                           bool listener, int64_t now);

//  The connection on fd closed
void
    drover_conns_closed (drover_conns_t *self, int fd);

//  The class of the connection on fd; NONE if none is known
drover_conn_class_t
    drover_conns_class (drover_conns_t *self, int fd);

//  Tell whether a message from route (a key of the peer's routing id, not
//  0) may be from the connection known on fd: one is known there, and it
//  has no route yet or that one. If not, the connection known there is
//  gone, or one came since, and the events saying so wait to be read.
bool
    drover_conns_same (drover_conns_t *self, int fd, uint64_t route);

//  A valid message came on fd from route at now; member: it makes its
//  sender a member (a worker's registration, an admin key's request). The
//  connection's first message gives it its route. Returns NULL if it is
//  served, or why not (borrowed, until the next call): the connection is
//  then cut `told` msec later. A message from another route than the
//  connection's (a late one from a connection gone) is served, and
//  changes nothing.
const char *
    drover_conns_admit (drover_conns_t *self, int fd, uint64_t route, bool member, int64_t now);

//  Cut silent connections after msec from now on; 0: never (a broker
//  standing by, whose peers' words it does not read). Turned on, the
//  silent connections open now have msec from now.
void
    drover_conns_set_silent (drover_conns_t *self, int msec, int64_t now);

//  Take the next connection due to be cut at now: its fd, or -1. It
//  stays counted (class CUT) until drover_conns_closed.
int
    drover_conns_next_cut (drover_conns_t *self, int64_t now);

//  When the next cut is due, msec monotonic; -1 if none
int64_t
    drover_conns_deadline (drover_conns_t *self);

//  Tell whether a newcomer now would find no place as a stranger
//  without evicting someone: the time to make sure the count is true
bool
    drover_conns_full (drover_conns_t *self);

//  Ask check about every connection open; forget those it says are gone
//  (their close was not reported). Returns how many.
size_t
    drover_conns_audit (drover_conns_t *self, drover_conns_check_fn *check, void *arg);

//  The peer address of the connection on fd ("" if unknown or none), and
//  its port in *port_p
const char *
    drover_conns_address (drover_conns_t *self, int fd, int *port_p);

//  Connections open, of every class
size_t
    drover_conns_count (drover_conns_t *self);

//  Connections open of one class
size_t
    drover_conns_class_count (drover_conns_t *self, drover_conn_class_t klass);

//  Connections that went for one reason, since creation
uint64_t
    drover_conns_gone (drover_conns_t *self, drover_conns_reason_t reason);

//  Connections accepted since creation
uint64_t
    drover_conns_accepted_total (drover_conns_t *self);

//  Connections served at most
size_t
    drover_conns_limit (drover_conns_t *self);

//  Of those, kept for members
size_t
    drover_conns_reserve (drover_conns_t *self);

#ifdef __cplusplus
}
#endif

#endif
