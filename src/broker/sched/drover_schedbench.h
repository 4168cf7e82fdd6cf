/*  =========================================================================
    drover_schedbench - what one assignment costs the scheduling queue
    shared by many owners: a benchmark for drover bench and the tests

    A cluster kept full (100 workers of 16 procs), queued requests of one
    proc spread evenly over the owners, and each round one running task
    ends (a fixed pseudo-random pick), one pass places the next request,
    and its owner queues one more: the queue's size stays as given. The
    cost of a round (free, pass, push) is the cost per assignment. Plain
    function, no threads, no I/O; it reads the clock (zclock_usecs).
    =========================================================================
*/

#ifndef DROVER_SCHEDBENCH_H_INCLUDED
#define DROVER_SCHEDBENCH_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  What one run measured
typedef struct {
    uint32_t owners;            //  owners queueing
    uint32_t queued;            //  requests queued throughout
    uint32_t rounds;            //  assignments measured
    double usec;                //  microseconds per assignment (free, pass, push)
    double spread;              //  the most procs an owner ran at the end over the fewest
                                //  (1.0: even), of owners with procs running
} drover_schedbench_t;

//  Measure rounds assignments with owners (>= 1) sharing queued requests
//  (>= owners); fills *result. Returns 0, or -1 if the sizes are invalid.
int
    drover_schedbench_run (uint32_t owners, uint32_t queued, uint32_t rounds,
                           drover_schedbench_t *result);

#ifdef __cplusplus
}
#endif

#endif
