/*  =========================================================================
    drover - the public API in one include: the client (submit, wait,
    list, steer) and the worker (register, run what is offered)

    Install include/drover/ and write #include "drover/drover.h" (or put
    include/drover on the path and #include "drover.h"). These headers
    bring their own small types and codes; none of them is the wire's.
    =========================================================================
*/

#ifndef DROVER_H_INCLUDED
#define DROVER_H_INCLUDED

#include "drover_codes.h"
#include "drover_client.h"
#include "drover_worker.h"

#endif
