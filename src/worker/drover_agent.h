/*  =========================================================================
    drover_agent - the `drover worker` agent: runs tasks as child processes
    for a broker, using the worker API (drover_worker) and the process
    runner (drover_runner)
    =========================================================================
*/

#ifndef DROVER_AGENT_H_INCLUDED
#define DROVER_AGENT_H_INCLUDED

//  Run `drover worker [flags]`: argv [0] is "worker". Returns the exit status.
int
    drover_agent_main (int argc, char **argv);

#endif
