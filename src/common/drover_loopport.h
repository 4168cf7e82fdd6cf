/*  =========================================================================
    drover_loopport - a TCP port on 127.0.0.1 that was free a moment ago,
    outside the range the kernel takes outgoing connections' ports from

    For the brokers `drover bench` and the tests start, kill and start
    again on the same ports. A port of the ephemeral range may be taken
    by any process's outgoing connection while its broker is down, and
    the broker's bind then fails (address in use); a port outside it can
    only be taken by another listener. The port is below the range if
    the range leaves room there, else above it, from a random start.
    =========================================================================
*/

#ifndef DROVER_LOOPPORT_H_INCLUDED
#define DROVER_LOOPPORT_H_INCLUDED

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

//  Return a port on 127.0.0.1 that was free a moment ago, and whose next
//  port is outside the ephemeral range too (a broker's events go there);
//  0 if every port outside the range is in use
int
    drover_loopport_free (void);

//  True if a TCP bind on 127.0.0.1:port works now
bool
    drover_loopport_is_free (int port);

//  Set low and high to the range the kernel takes outgoing connections'
//  ports from (/proc/sys/net/ipv4/ip_local_port_range; Linux's default if
//  it cannot be read)
void
    drover_loopport_ephemeral_range (int *low, int *high);

#ifdef __cplusplus
}
#endif

#endif
