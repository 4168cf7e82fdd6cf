/*  =========================================================================
    drover_reach - is anything listening at a TCP endpoint? (see the header)
    =========================================================================
*/

#include "drover_reach.h"
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

struct _drover_reach_t {
    char *endpoint;             //  tcp://HOST:PORT, owned
    struct sockaddr_storage address;    //  HOST:PORT resolved
    socklen_t address_size;     //  bytes of it
};


//  Make a check of endpoint: split tcp://HOST:PORT ([HOST] for IPv6) and
//  resolve HOST
drover_reach_t *
drover_reach_new (const char *endpoint)
{
    if (!endpoint || strncmp (endpoint, "tcp://", 6))
        return NULL;
    const char *host = endpoint + 6;
    const char *colon = strrchr (host, ':');
    if (!colon || colon == host || !colon [1] || strchr (host, '*'))
        return NULL;
    char name [256];
    size_t length = (size_t) (colon - host);
    if (host [0] == '[' && length >= 2 && colon [-1] == ']') {
        host++;                 //  [::1]:5555
        length -= 2;
    }
    if (length >= sizeof name)
        return NULL;
    memcpy (name, host, length);
    name [length] = 0;
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
    struct addrinfo *found = NULL;
    if (getaddrinfo (name, colon + 1, &hints, &found) || !found)
        return NULL;
    drover_reach_t *self = (drover_reach_t *) zmalloc (sizeof (drover_reach_t));
    self->endpoint = strdup (endpoint);
    assert (self->endpoint);
    memcpy (&self->address, found->ai_addr, found->ai_addrlen);
    self->address_size = found->ai_addrlen;
    freeaddrinfo (found);
    return self;
}

//  Destroy
void
drover_reach_destroy (drover_reach_t **self_p)
{
    assert (self_p);
    drover_reach_t *self = *self_p;
    if (self) {
        free (self->endpoint);
        free (self);
        *self_p = NULL;
    }
}

//  Connect and close at once, waiting up to timeout msec for the answer
int
drover_reach_check (drover_reach_t *self, int timeout)
{
    assert (self);
    int fd = socket (self->address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return DROVER_REACH_UNKNOWN;        //  out of descriptors: cannot tell
    int found = DROVER_REACH_UNKNOWN;
    if (connect (fd, (struct sockaddr *) &self->address, self->address_size) == 0)
        found = DROVER_REACH_LISTENING;
    else
    if (errno == ECONNREFUSED)
        found = DROVER_REACH_REFUSED;
    else
    if (errno == EINPROGRESS) {
        struct pollfd item = { .fd = fd, .events = POLLOUT };
        int error = 0;
        socklen_t size = sizeof error;
        if (poll (&item, 1, timeout) == 1
        &&  getsockopt (fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0)
            found = error == 0? DROVER_REACH_LISTENING
                  : error == ECONNREFUSED? DROVER_REACH_REFUSED: DROVER_REACH_UNKNOWN;
    }
    close (fd);
    return found;
}

//  Return the endpoint checked
const char *
drover_reach_endpoint (drover_reach_t *self)
{
    assert (self);
    return self->endpoint;
}
