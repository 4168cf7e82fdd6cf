/*  =========================================================================
    drover_broker - the broker process: owns the TCP sockets, starts the
    actors and routes between them (see actors/ACTORS.md)
    =========================================================================
*/

#ifndef DROVER_BROKER_H_INCLUDED
#define DROVER_BROKER_H_INCLUDED

//  Run `drover broker [flags]`: argv [0] is "broker". Returns the exit status.
int
    drover_broker_main (int argc, char **argv);

#endif
