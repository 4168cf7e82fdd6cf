/*  =========================================================================
    drover_loopport - a free TCP port on 127.0.0.1 outside the ephemeral
    range (see the header)
    =========================================================================
*/

#include "drover_loopport.h"
#include <czmq.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#define S_PORT_LOW      10000       //  no port below this one: well-known services
#define S_PORTS_MIN     2000        //  ports a side of the range must hold to be used
#define S_RANGE_LOW     32768       //  Linux's ephemeral range when it cannot be read
#define S_RANGE_HIGH    60999

//  Set low and high to the kernel's ephemeral range
void
drover_loopport_ephemeral_range (int *low, int *high)
{
    *low = S_RANGE_LOW;
    *high = S_RANGE_HIGH;
    FILE *file = fopen ("/proc/sys/net/ipv4/ip_local_port_range", "r");
    if (!file)
        return;
    if (fscanf (file, "%d %d", low, high) != 2 || *low < 1 || *high < *low || *high > 65535) {
        *low = S_RANGE_LOW;
        *high = S_RANGE_HIGH;
    }
    fclose (file);
}

//  True if a TCP bind on 127.0.0.1:port works now
bool
drover_loopport_is_free (int port)
{
    if (port < 1 || port > 65535)
        return false;
    int fd = socket (AF_INET, SOCK_STREAM, 0);
    if (fd == -1)
        return false;
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    bool free_ = bind (fd, (struct sockaddr *) &address, sizeof address) == 0;
    close (fd);
    return free_;
}

//  Return a free port outside the ephemeral range, its next port outside
//  too, from a random start; 0 if none
int
drover_loopport_free (void)
{
    static __thread unsigned int seed = 0;
    if (seed == 0)
        seed = ((unsigned int) getpid () << 16) ^ (unsigned int) zclock_usecs () ^ 1;
    int low, high;
    drover_loopport_ephemeral_range (&low, &high);
    int first = S_PORT_LOW, last = low - 2;    //  last + 1 is below the range too
    if (last - first + 1 < S_PORTS_MIN) {
        first = high + 1 > S_PORT_LOW? high + 1: S_PORT_LOW;
        last = 65534;
    }
    if (last - first + 1 < S_PORTS_MIN)
        return 0;                               //  no room on either side
    int span = last - first + 1;
    int start = (int) ((unsigned int) rand_r (&seed) % (unsigned int) span);
    for (int offset = 0; offset < span; offset++) {
        int port = first + (start + offset) % span;
        if (drover_loopport_is_free (port))
            return port;
    }
    return 0;
}
