/*  =========================================================================
    drover_capture - one captured output stream of a task, bounded

    The buffer grows by doubling from 4 KiB up to the bound, so a quiet
    task costs little; reads past the bound land in the caller's scratch
    (the runner shares one among all its streams).
    =========================================================================
*/

#include "drover_capture.h"
#include <errno.h>
#include <unistd.h>

#define S_READS_MAX     16          //  reads of one pipe per readiness

struct _drover_capture_t {
    int fd;                         //  read end of the pipe, -1 once closed
    size_t max;                     //  bytes kept at most
    byte *data;                     //  bytes kept, owned
    size_t size;                    //  bytes kept
    size_t alloc;                   //  bytes allocated in data
    bool truncated;                 //  some bytes were read and discarded
};


//  --------------------------------------------------------------------------
//  Create a capture reading fd, keeping at most max bytes

drover_capture_t *
drover_capture_new (int fd, size_t max)
{
    drover_capture_t *self = (drover_capture_t *) zmalloc (sizeof (drover_capture_t));
    self->fd = fd;
    self->max = max;
    return self;
}


//  Close the pipe if open and mark it closed
static void
s_close (drover_capture_t *self)
{
    if (self->fd >= 0)
        close (self->fd);
    self->fd = -1;
}


//  --------------------------------------------------------------------------
//  Destroy a capture: close its fd, free what it kept

void
drover_capture_destroy (drover_capture_t **self_p)
{
    assert (self_p);
    drover_capture_t *self = *self_p;
    if (!self)
        return;
    s_close (self);
    free (self->data);
    free (self);
    *self_p = NULL;
}


//  --------------------------------------------------------------------------
//  Return the fd to poll, or -1 once closed

int
drover_capture_fd (drover_capture_t *self)
{
    assert (self);
    return self->fd;
}


//  --------------------------------------------------------------------------
//  Read what the pipe holds into the bounded buffer, discarding past the
//  bound; closes the fd at EOF. Stops after S_READS_MAX reads so one busy
//  writer cannot hold the loop.

void
drover_capture_read (drover_capture_t *self, byte *scratch, size_t scratch_size)
{
    assert (self);
    for (int reads = 0; self->fd >= 0 && reads < S_READS_MAX; reads++) {
        byte *into = scratch;
        size_t room = scratch_size;
        if (self->size < self->max) {
            if (self->size == self->alloc) {
                size_t alloc = self->alloc? self->alloc * 2: 4096;
                if (alloc > self->max)
                    alloc = self->max;
                self->data = (byte *) realloc (self->data, alloc);
                assert (self->data);
                self->alloc = alloc;
            }
            into = self->data + self->size;
            room = self->alloc - self->size;
        }
        ssize_t rc = read (self->fd, into, room);
        if (rc == -1 && errno == EINTR)
            continue;
        if (rc == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (rc <= 0) {
            s_close (self);         //  EOF, or an error we can't read past
            return;
        }
        if (into == scratch)
            self->truncated = true;
        else
            self->size += (size_t) rc;
    }
}


//  --------------------------------------------------------------------------
//  Drain a pipe after its writer exited: read until EAGAIN or EOF, then close

void
drover_capture_drain (drover_capture_t *self, byte *scratch, size_t scratch_size)
{
    assert (self);
    while (self->fd >= 0) {
        int before = self->fd;
        size_t size = self->size;
        bool truncated = self->truncated;
        drover_capture_read (self, scratch, scratch_size);
        if (self->fd == before && self->size == size && self->truncated == truncated)
            break;              //  nothing more now (a grandchild may hold it open)
    }
    s_close (self);
}


//  --------------------------------------------------------------------------
//  Return true if bytes past the bound were discarded

bool
drover_capture_truncated (drover_capture_t *self)
{
    assert (self);
    return self->truncated;
}


//  --------------------------------------------------------------------------
//  Hand the kept bytes over to the caller (NULL and 0 if none)

void
drover_capture_take (drover_capture_t *self, byte **data_p, size_t *size_p)
{
    assert (self);
    if (self->size) {
        *data_p = self->data;
        *size_p = self->size;
    }
    else {
        free (self->data);
        *data_p = NULL;
        *size_p = 0;
    }
    self->data = NULL;
    self->size = self->alloc = 0;
}
