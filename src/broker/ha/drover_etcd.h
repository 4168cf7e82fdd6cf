/*  =========================================================================
    drover_etcd - a small etcd v3 client over its JSON gateway (etcd 3.4's
    /v3/... endpoints), with libcurl and json-c

    Leases (grant, keep-alive, revoke) and keys (put, get, range by prefix,
    delete, create-if-absent) for the elector (actors/drover_elector_actor.c).
    Keys and values are bytes to us and base64 on the wire. Each call is
    one HTTP POST that gives up after the timeout; the endpoints are a
    comma-separated list and a call that gets no answer moves on to the
    next one for the call after (the caller retries when it likes). A call
    blocks its caller: an actor uses it with a timeout shorter than any
    deadline it keeps. Not thread-safe: one instance per thread.
    =========================================================================
*/

#ifndef DROVER_ETCD_H_INCLUDED
#define DROVER_ETCD_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_etcd_t drover_etcd_t;

//  One key as etcd holds it
typedef struct {
    char *key;                  //  the key, NUL-terminated (keys with a NUL are refused)
    char *value;                //  the value, NUL-terminated (may hold NULs: see value_size)
    size_t value_size;          //  bytes in value, without the terminating NUL
    int64_t create_revision;    //  revision that created the key
    int64_t mod_revision;       //  revision that last changed it
    int64_t lease;              //  lease the key is attached to, 0 for none
} drover_etcd_kv_t;

//  What a call returns when etcd answered "no such thing" (a lease not
//  found); -1 is always "no answer, or an error": see drover_etcd_error
#define DROVER_ETCD_GONE    0

//  Most bytes of one answer we read (a range over many keys): more is an error
#define DROVER_ETCD_ANSWER_MAX  (16 * 1024 * 1024)

//  Create a client of endpoints ("http://host:port[,http://...]"), each
//  call giving up after timeout msec. NULL (and *error_p, if not NULL, a
//  message the caller frees) if the list is empty or an endpoint is not
//  an http:// or https:// URL.
drover_etcd_t *
    drover_etcd_new (const char *endpoints, uint32_t timeout, char **error_p);

//  Destroy the client; harmless on NULL
void
    drover_etcd_destroy (drover_etcd_t **self_p);

//  Change the timeout of the calls from now on, msec (at least 1)
void
    drover_etcd_set_timeout (drover_etcd_t *self, uint32_t timeout);

//  The endpoint the next call goes to
const char *
    drover_etcd_endpoint (drover_etcd_t *self);

//  What went wrong in the last call that failed, for a log line
const char *
    drover_etcd_error (drover_etcd_t *self);

//  The cluster's revision in the last answer (its header), 0 before any
int64_t
    drover_etcd_revision (drover_etcd_t *self);

//  Grant a lease of ttl seconds: 0 and *lease_p (and *granted_p, the TTL
//  etcd granted, seconds, if not NULL: etcd has a minimum) or -1
int
    drover_etcd_grant (drover_etcd_t *self, int64_t ttl, int64_t *lease_p, int64_t *granted_p);

//  Renew a lease once: its TTL left after the renewal (seconds, > 0),
//  DROVER_ETCD_GONE if etcd no longer has it (expired or revoked), or -1
int64_t
    drover_etcd_keepalive (drover_etcd_t *self, int64_t lease);

//  Revoke a lease (and delete every key attached to it): 1, DROVER_ETCD_GONE
//  if etcd has no such lease, or -1
int
    drover_etcd_revoke (drover_etcd_t *self, int64_t lease);

//  Set key to value (size bytes), attached to lease (0: none): 0 or -1
//  (also when the lease is gone)
int
    drover_etcd_put (drover_etcd_t *self, const char *key, const void *value, size_t size,
                     int64_t lease);

//  Set key to value (size bytes, attached to lease, 0: none) only if it does
//  not exist, in one transaction: 1 and created, DROVER_ETCD_GONE (0) if it
//  existed (left as it was), or -1. *revision_p, if not NULL, gets the
//  revision of the transaction (the new key's create revision when created).
int
    drover_etcd_create (drover_etcd_t *self, const char *key, const void *value, size_t size,
                        int64_t lease, int64_t *revision_p);

//  Read one key: 1 and *kv_p (ours: drover_etcd_kv_destroy), 0 if there is
//  no such key (*kv_p NULL), or -1
int
    drover_etcd_get (drover_etcd_t *self, const char *key, drover_etcd_kv_t **kv_p);

//  Read every key starting with prefix, at most limit (0: no limit), in
//  key order, or by create revision, oldest first, if by_create: a list of
//  drover_etcd_kv_t (ours; the list destroys them) or NULL on failure
zlistx_t *
    drover_etcd_range (drover_etcd_t *self, const char *prefix, bool by_create, int64_t limit);

//  Delete key: the number of keys deleted (0 or 1), or -1
int
    drover_etcd_delete (drover_etcd_t *self, const char *key);

//  The JSON body of a /v3/watch request watching every key starting with
//  prefix (drover_etcdwatch opens it); ours
char *
    drover_etcd_watch_body (const char *prefix);

//  Destroy a key read with drover_etcd_get; harmless on NULL
void
    drover_etcd_kv_destroy (drover_etcd_kv_t **self_p);

#ifdef __cplusplus
}
#endif

#endif
