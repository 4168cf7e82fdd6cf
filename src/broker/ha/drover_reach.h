/*  =========================================================================
    drover_reach - is anything listening at a TCP endpoint? A standby asks
    it of the leader it names (PROTOCOL.md §17)

    A leader killed (kill -9, a crash) keeps its election key until its
    lease ends, so for seconds its standbys would name it to every peer.
    Its machine still answers, though: a TCP connect to its endpoint is
    refused at once. This class makes that one check: a non-blocking
    connect, waited for a few msec, then closed before anything is said
    (the leader's libzmq sees a connection open and close, nothing more).
    Only a refusal counts as gone; a timeout or an unreachable network
    says nothing (a dead machine, a firewall that drops: the lease decides
    then). The endpoint's host is resolved once, when the class is made.
    A plain class: no threads; check blocks for at most its timeout.
    =========================================================================
*/

#ifndef DROVER_REACH_H_INCLUDED
#define DROVER_REACH_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_reach_t drover_reach_t;

//  What a check found
#define DROVER_REACH_UNKNOWN    -1  //  no answer in time, no route: cannot tell
#define DROVER_REACH_REFUSED    0   //  the host answered that nothing listens there
#define DROVER_REACH_LISTENING  1   //  something accepted the connection

//  Make a check of endpoint, tcp://HOST:PORT (HOST resolved now: this may
//  wait on DNS). NULL if it is not one, or HOST does not resolve.
drover_reach_t *
    drover_reach_new (const char *endpoint);

//  Destroy; harmless on NULL
void
    drover_reach_destroy (drover_reach_t **self_p);

//  Connect to the endpoint and close at once, waiting up to timeout msec:
//  DROVER_REACH_LISTENING, _REFUSED or _UNKNOWN
int
    drover_reach_check (drover_reach_t *self, int timeout);

//  Return the endpoint checked (borrowed)
const char *
    drover_reach_endpoint (drover_reach_t *self);

#ifdef __cplusplus
}
#endif

#endif
