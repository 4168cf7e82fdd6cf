/*  =========================================================================
    drover_postgres_internal - what the PostgreSQL backend's two files
    share: drover_postgres.c (open, fencing, the writes) and
    drover_postgres_read.c (load, replay, the settings and services read
    back). Not for any other file.
    =========================================================================
*/

#ifndef DROVER_POSTGRES_INTERNAL_H_INCLUDED
#define DROVER_POSTGRES_INTERNAL_H_INCLUDED

#include "drover_postgres.h"
#include "drover_pgconn.h"
#include "drover_sqlbatch.h"

//  The prepared statements, by index in drover_postgres.c's table
typedef enum {
    S_INSERT_TASK, S_UPDATE_STATE, S_UPDATE_FINAL, S_INSERT_EVENTS, S_SET_META,
    S_FENCE_CHECK, S_LOAD_CUT, S_LOAD, S_REPLAY, S_PRUNE_OLDEST, S_PRUNE_AGED,
    S_FIRST_TASK_SEQ, S_LAST_SEQ, S_PRUNE_EVENTS, S_SAVE_ADMIN, S_FORGET_ADMIN,
    S_LOAD_ADMIN, S_SAVE_SERVICE, S_FORGET_SERVICE, S_LOAD_SERVICES, S_READ_TASK, S_STATEMENTS
} drover_postgres_statement_t;

//  One kind of task write's rows, by column (1..34; see drover_postgres.c)
typedef struct {
    drover_pgarray_t columns [35];  //  one array a column, [0] unused
} drover_postgres_rows_t;

struct _drover_postgres_t {
    drover_pgconn_t *conn;          //  the connection
    uint64_t fence;                 //  our fencing token, 0: none
    bool fenced;                    //  a write was refused by fencing
    char fenced_error [DROVER_STORE_ERROR_MAX];   //  its text, said to every later write
    drover_sqlbatch_t *tasks;      //  the batch's changes by task
    byte *pack;                     //  buffer for packing one events row
    drover_postgres_rows_t rows [3];    //  a batch's inserts, updates, final updates
    uint64_t finals;                //  final tasks kept: prune by count needs no scan
};

#endif
