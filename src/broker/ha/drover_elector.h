/*  =========================================================================
    drover_elector - the elector's records in etcd: what a broker's name
    and advertised endpoint may hold, and the values of its keys

    A broker's membership key, PREFIX/brokers/NAME, holds its advertised
    endpoint, then "\nQ ENDPOINT" for each named queue it offers; its
    candidacy, PREFIX/election/LEASEHEX, holds name "\n" advertise. A
    newline would split them: names and endpoints hold no control
    characters, and a name no '/'. Plain functions, no call to etcd: the
    elector (actors/drover_elector_actor.c) makes the calls.
    =========================================================================
*/

#ifndef DROVER_ELECTOR_H_INCLUDED
#define DROVER_ELECTOR_H_INCLUDED

#include <czmq.h>
#include "drover_etcd.h"

//  Longest name and endpoint we pass on (the wire's REDIRECT limits)
#define DROVER_ELECTOR_NAME_MAX       64
#define DROVER_ELECTOR_ENDPOINT_MAX   256

//  Return a key prefix without its trailing '/'s (a lone "/" stays); ours
char *
    drover_elector_prefix (const char *prefix);

//  True if name can name a broker: 1 to 64 bytes, without '/' or control
//  characters
bool
    drover_elector_name_valid (const char *name);

//  True if an advertised endpoint fits: at most 256 bytes, without
//  control characters
bool
    drover_elector_advertise_valid (const char *advertise);

//  Return a candidacy's value, name "\n" advertise; ours
char *
    drover_elector_candidacy (const char *name, const char *advertise);

//  Return a membership's value: advertise, then "\n" and the queue lines
//  if queues is not ""; ours
char *
    drover_elector_membership (const char *advertise, const char *queues);

//  Split a candidacy's value "name\nendpoint" into name (64 + 1 bytes)
//  and endpoint (256 + 1 bytes); false if malformed
bool
    drover_elector_parse_candidacy (drover_etcd_kv_t *kv, char *name, char *endpoint);

//  Add the brokers' membership keys (a range over PREFIX/brokers/, NULL if
//  etcd did not answer) to a PEERS reply: their count, then name, advertised
//  endpoint and "1" or "0" (named leader or not) for each. prefix_length:
//  bytes of "PREFIX/brokers/" before each name.
void
    drover_elector_add_peers (zmsg_t *reply, zlistx_t *brokers, size_t prefix_length,
                                const char *leader);

#endif
