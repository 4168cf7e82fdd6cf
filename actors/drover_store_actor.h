/*  =========================================================================
    drover_store_actor - the store actor: keeps the broker's state through a
    backend (src/broker/store/drover_store.h), numbers and publishes events

    What it hears and says, and how: actors/ACTORS.md, "store".
    =========================================================================
*/

#ifndef DROVER_STORE_ACTOR_H_INCLUDED
#define DROVER_STORE_ACTOR_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  How much a crash may lose (broker/durability)
typedef enum {
    DROVER_DURABILITY_FULL = 0,     //  nothing acknowledged: replies wait for the commit
    DROVER_DURABILITY_BATCH = 1,    //  commits every commit-every msec; replies do not wait
    DROVER_DURABILITY_OFF = 2       //  memory only: nothing survives a restart
} drover_durability_t;

//  What the store is started with: read once, before zactor_new returns,
//  so the caller may free it after
typedef struct {
    const char *state_dir;          //  broker/state-dir, or a PostgreSQL URI
                                    //  ("postgresql://..."): unused with durability off
    uint64_t fence;                 //  fencing token for a PostgreSQL state (0: none):
                                    //  the leader's election revision
    int durability;                 //  drover_durability_t
    uint32_t commit_every;          //  msec between commits with durability batch
    uint32_t keep_finished;         //  final tasks restored into the task table, newest first
    uint32_t history_count;         //  final tasks kept on disk, at most
    uint32_t history_age;           //  seconds a final task is kept on disk, at most
    uint32_t history_events;        //  events kept on disk, at most
} drover_store_actor_args_t;

//  Return the durability named by text ("full", "batch", "off"), or -1
int
    drover_durability_parse (const char *text);

//  The actor: zactor_new (drover_store_actor, &args). Its first message is
//  OPENED ok(4) text(s): 1 and the backend's name, or 0 and why it could
//  not open the state (the broker must not start; "fenced: ..." if a newer
//  leader holds a PostgreSQL state). Later, FENCED text(s) once if a write
//  was refused by fencing: the broker must stop serving.
void
    drover_store_actor (zsock_t *pipe, void *args);

#ifdef __cplusplus
}
#endif

#endif
