/*  =========================================================================
    drover_etcdwatch - one etcd watch over a key prefix, through the JSON
    gateway's streaming /v3/watch, read without ever blocking its caller

    A POST of {"create_request": {key, range_end}} whose answer never ends:
    one JSON object a line, {"result": {"created": true, ...}} first, then
    {"result": {"events": [...], ...}} for each change under the prefix.
    The connection is a libcurl multi handle driven from the caller's poll
    loop: the caller waits on drover_etcdwatch_fd (readable) up to
    drover_etcdwatch_timeout, then calls drover_etcdwatch_perform, which
    reads what came and says what it meant. It says when something changed,
    not what: the elector reads its keys again (they are the truth; the
    watch only says when to look). Not thread-safe: one owner thread.
    =========================================================================
*/

#ifndef DROVER_ETCDWATCH_H_INCLUDED
#define DROVER_ETCDWATCH_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_etcdwatch_t drover_etcdwatch_t;

//  What drover_etcdwatch_perform found (bits)
#define DROVER_ETCDWATCH_CREATED    1   //  etcd created the watch
#define DROVER_ETCDWATCH_CHANGED    2   //  a change under the prefix
#define DROVER_ETCDWATCH_BROKEN     4   //  the stream ended or failed: see _error

//  Longest line of the stream we take (one change's events): more breaks it
#define DROVER_ETCDWATCH_LINE_MAX   (4 * 1024 * 1024)

//  Create a watch, not yet open
drover_etcdwatch_t *
    drover_etcdwatch_new (void);

//  Destroy the watch, closing its connection; harmless on NULL
void
    drover_etcdwatch_destroy (drover_etcdwatch_t **self_p);

//  Open a watch of every key starting with prefix on endpoint
//  ("http://host:port"), closing any open one; connect_timeout msec.
void
    drover_etcdwatch_open (drover_etcdwatch_t *self, const char *endpoint, const char *prefix,
                           uint32_t connect_timeout);

//  Close the watch's connection, if open
void
    drover_etcdwatch_close (drover_etcdwatch_t *self);

//  True if a watch is open (asked for, created or not)
bool
    drover_etcdwatch_is_open (drover_etcdwatch_t *self);

//  The fd to wait on for input, -1 for none now
int
    drover_etcdwatch_fd (drover_etcdwatch_t *self);

//  msec until drover_etcdwatch_perform is due anyway (libcurl's timers, or
//  a short one while it waits to write), -1 for none
int
    drover_etcdwatch_timeout (drover_etcdwatch_t *self);

//  Read and write what the connection can without blocking; readable: the
//  fd was ready. Returns DROVER_ETCDWATCH_... bits (0: nothing new). After
//  BROKEN the watch is closed.
int
    drover_etcdwatch_perform (drover_etcdwatch_t *self, bool readable);

//  What broke the watch last, for a log line
const char *
    drover_etcdwatch_error (drover_etcdwatch_t *self);

//  How many changes (events) the watch has seen since created
uint64_t
    drover_etcdwatch_changes (drover_etcdwatch_t *self);

//  Handle one line of the stream (for the tests: what perform does with
//  each): DROVER_ETCDWATCH_... bits
int
    drover_etcdwatch_take_line (drover_etcdwatch_t *self, const char *line, size_t size);

#ifdef __cplusplus
}
#endif

#endif
